import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

/// Finding, reading and loading the files the subcommands work on.
enum PolicyFiles {
    /// The policy files under `paths`: files as given, directories searched
    /// recursively for `*.yaml` and `*.yml`, skipping `*.tests.yaml` (run by
    /// `test`) and dotfiles and dot-directories (such as `.retry-policy.yaml`
    /// and `.git`). Sorted within each directory so that output is stable.
    static func policyFiles(in paths: [String]) throws(CommandFailure) -> [String] {
        try files(in: paths) { name in
            (name.hasSuffix(".yaml") || name.hasSuffix(".yml")) && !isTestFile(name)
        }
    }

    /// The policy test files under `paths` (`*.tests.yaml`, `*.tests.yml`).
    static func testFiles(in paths: [String]) throws(CommandFailure) -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure("\(path): no such file or directory")
            }
            if isDirectory.boolValue {
                result += try files(in: [path]) { isTestFile($0) }
            } else if isTestFile(path) {
                result.append(path)
            } else if let sibling = testFile(besidePolicy: path) {
                // A policy file given directly (as pre-commit does): run its tests.
                if !result.contains(sibling) { result.append(sibling) }
            }
        }
        return result
    }

    static func isTestFile(_ name: String) -> Bool {
        name.hasSuffix(".tests.yaml") || name.hasSuffix(".tests.yml")
    }

    /// `tmdb.tests.yaml` beside `tmdb.yaml`, when it exists.
    static func testFile(besidePolicy path: String) -> String? {
        for ext in [".yaml", ".yml"] where path.hasSuffix(ext) {
            let base = String(path.dropLast(ext.count))
            for candidate in [base + ".tests.yaml", base + ".tests.yml"] where FileManager.default.fileExists(atPath: candidate) {
                return candidate
            }
        }
        return nil
    }

    private static func files(in paths: [String], matching accept: (String) -> Bool) throws(CommandFailure) -> [String] {
        var result: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure("\(path): no such file or directory")
            }
            if !isDirectory.boolValue {
                result.append(path)
                continue
            }
            result += walk(directory: path, accept: accept)
        }
        return result
    }

    private static func walk(directory: String, accept: (String) -> Bool) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var result: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory == "." ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                result += walk(directory: path, accept: accept)
            } else if accept(name) {
                result.append(path)
            }
        }
        return result
    }

    /// The text of `path`, or a usage error naming the file.
    static func read(_ path: String) throws(CommandFailure) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the file")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `reference` resolved against the directory of `file`.
    static func resolve(_ reference: String, relativeTo file: String) -> String {
        if reference.hasPrefix("/") { return reference }
        let directory = (file as NSString).deletingLastPathComponent
        return directory.isEmpty ? reference : (directory as NSString).appendingPathComponent(reference)
    }

    /// Loads one policy for a command that needs it; load problems are
    /// printed compiler-style and end the command with status 1 (the file
    /// is wrong) or 2 (it does not exist).
    static func loadPolicy(_ path: String) throws -> Policy {
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("\(path): no such file")
        }
        do {
            return try PolicyLoader().loadPolicy(atPath: path)
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(diagnostic.description + "\n") }
            throw ExitCodeError(status: ExitStatus.findings)
        }
    }
}

/// Ends a command with `status` after it has printed its own output.
struct ExitCodeError: Error {
    var status: Int32
}

extension LintFinding {
    /// A loader diagnostic in the shape lint reports.
    init(_ diagnostic: Diagnostic) {
        let severity: LintSeverity
        switch diagnostic.severity {
        case .error: severity = .error
        case .warning: severity = .warning
        case .note: severity = .note
        }
        self.init(id: diagnostic.id, severity: severity, location: diagnostic.location,
                  message: diagnostic.message, suggestion: diagnostic.suggestion)
    }
}
