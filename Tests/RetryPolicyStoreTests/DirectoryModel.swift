import Foundation
import RetryPolicyCore
@testable import RetryPolicyStore

/// A policy directory without a file system, for testing
/// `PolicyDirectoryReload` as a plain function: file names to what a read
/// of them gives, and a loader of a tiny `key: value` format that loads
/// from that text alone.
///
/// The format: `name: X`, `attempts: N`, and `extends: FILE`, which takes
/// `attempts` from another file of the directory unless the file sets it.
/// Anything else is an error located at its line; an unreadable file is
/// the loader's error too, as the YAML loader reports it.
struct DirectoryModel: Equatable, Sendable {
    static let base = "/policies/"

    var files: [String: PolicyFileRead] = [:]

    init(_ files: [String: String] = [:]) {
        self.files = Dictionary(uniqueKeysWithValues: files.map { (Self.base + $0.key, PolicyFileRead.text($0.value)) })
    }

    subscript(name: String) -> PolicyFileRead? {
        get { files[Self.base + name] }
        set { files[Self.base + name] = newValue }
    }

    static func unreadable(_ name: String, _ reason: String) -> PolicyFileRead {
        .unreadable(
            PolicyFileReadError(diagnostics: [
                Diagnostic(id: "RP009", location: SourceLocation(file: base + name, line: 1, column: 1), message: reason)
            ]))
    }

    /// What the store's reader would find: every file read, and loaded if
    /// the reload needs it. `held` files are listed but not read.
    func scan(
        after previous: PolicyDirectoryState, force: Bool = false,
        removals: PolicyDirectoryReload.Removals = .immediate, held: [String: Duration] = [:]
    ) -> PolicyDirectoryScan {
        var scan = PolicyDirectoryScan()
        for (path, read) in files { scan.files[path] = .init(read: read) }
        for (name, delay) in held { scan.hold(Self.base + name, recheckAfter: delay) }
        if PolicyDirectoryReload.needsLoading(scan, after: previous, force: force, removals: removals) {
            for path in scan.files.keys { scan.files[path]?.load = load(path) }
        }
        return scan
    }

    /// The reload of `previous` by this directory.
    func reload(
        _ previous: PolicyDirectoryState, force: Bool = false, removals: PolicyDirectoryReload.Removals = .immediate,
        held: [String: Duration] = [:]
    ) -> PolicyDirectoryReload {
        PolicyDirectoryReload(
            scan(after: previous, force: force, removals: removals, held: held), after: previous, force: force,
            removals: removals)
    }

    func load(_ path: String, depth: Int = 0) -> Result<Policy?, PolicyFileProblem> {
        guard let read = files[path] else {
            return .failure(PolicyFileProblem(path: path, message: "no such file"))
        }
        guard case .text(let text) = read else {
            if case .unreadable(let error) = read { return .failure(PolicyFileProblem(path: path, diagnostics: error.diagnostics)) }
            return .success(nil)
        }
        var name: String?
        var attempts: Int?
        var parent: String?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch (parts.first, parts.count) {
            case ("name", 2): name = parts[1]
            case ("attempts", 2) where Int(parts[1]) != nil: attempts = Int(parts[1])
            case ("extends", 2): parent = parts[1]
            default:
                return .failure(PolicyFileProblem(
                    path: path,
                    diagnostics: [
                        Diagnostic(
                            location: SourceLocation(file: path, line: index + 1, column: 1),
                            message: "expected 'name', 'attempts' or 'extends', found '\(line)'")
                    ]))
            }
        }
        if let parent, attempts == nil {
            guard depth < 8, case .success(let base?) = load(Self.base + parent, depth: depth + 1) else {
                return .failure(PolicyFileProblem(path: path, message: "cannot extend '\(parent)'"))
            }
            attempts = base.attempts
        }
        guard let name else { return .failure(PolicyFileProblem(path: path, message: "missing 'name'")) }
        return .success(Policy(name: name, attempts: attempts ?? 1, location: SourceLocation(file: path, line: 1, column: 1)))
    }
}
