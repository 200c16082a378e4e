import RetryPolicyCore
import RetryPolicyLint
import RetryPolicySimulation
import RetryPolicyYAML

/// What a file open in the editor is, which decides how it is checked.
enum DocumentKind: Sendable, Hashable {
    /// A policy or stack file: checked as `retry-policy lint` checks it.
    case policy
    /// `NAME.tests.yaml`: read as `retry-policy test` reads it.
    case testsFile
    /// `.retry-policy.yaml`.
    case settings
    /// Other YAML: not checked, as lint's walk skips it.
    case other

    /// The kind of `text` at `path`, as lint's discovery tells it.
    static func of(text: String, path: String) -> DocumentKind {
        if LintSettingsDiscovery.isSettingsFile(path) { return .settings }
        if PolicyFileName.isTestFile(path) { return .testsFile }
        switch PolicyFileKind.of(bytes: Array(text.utf8), path: path) {
        case .policy: return .policy
        case .testsFile: return .testsFile
        case .other: return .other
        }
    }
}

/// The findings of one document and what its check read.
struct CheckResult: Sendable {
    var findings: [LintFinding] = []
    /// Canonical paths of every file read, the document's own included.
    var reads: Set<String> = []
    /// The policy, when the document loads as one.
    var policy: Policy?
    /// The tests file's reading, when it is one.
    var suite: PolicyTestSuite?
}

/// Checks one document through a root whose file system holds the open
/// buffers: the loader and `LintRun` exactly as `retry-policy lint` runs
/// them, the tests-file reader as `retry-policy test` runs it, and the
/// settings reader.
struct DocumentChecker: Sendable {
    /// The workspace root, on the system's file system.
    var root: PolicyRoot
    /// Unsaved texts by canonical path.
    var buffers: [String: [UInt8]]

    /// The root seen through the buffers, and the log of what it reads.
    func overlayRoot() -> (PolicyRoot, ReadLog) {
        let log = ReadLog()
        let system = OverlayFileSystem(buffers: buffers, reads: log)
        // The root was made from this path, so it is a directory and allowed.
        let root = (try? PolicyRoot(directory: self.root.path, fileSystem: system)) ?? self.root
        return (root, log)
    }

    /// The settings that apply to `path`: the nearest `.retry-policy.yaml`
    /// upward from its directory, read through the buffers.
    func configuration(for path: String, root: PolicyRoot) -> LintConfiguration {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard let settings = LintSettingsDiscovery.settingsPath(from: directory.isEmpty ? "/" : directory, root: root),
            case .success(let bytes) = root.readFile(settings)
        else { return LintConfiguration() }
        return (try? LintSettingsDiscovery.configuration(text: String(decoding: bytes, as: UTF8.self), path: settings, root: root))
            ?? LintConfiguration()
    }

    func check(path: String, kind: DocumentKind) -> CheckResult {
        let (root, log) = overlayRoot()
        var result = CheckResult()
        switch kind {
        case .policy:
            let configuration = configuration(for: path, root: root)
            if configuration.selects(canonicalPath: path) {
                result.findings = LintRun(root: root, configuration: configuration).lint(file: path)
            }
            if case .success(let bytes) = root.readFile(path),
                case .policy(let policy)? = try? PolicyLoader(root: root).loadDocument(bytes: bytes, path: path) {
                result.policy = policy
            }
        case .testsFile:
            (result.findings, result.suite, result.policy) = checkTests(path: path, root: root)
        case .settings:
            switch root.readFile(path) {
            case .success(let bytes):
                do {
                    _ = try LintSettingsDiscovery.configuration(text: String(decoding: bytes, as: UTF8.self), path: path, root: root)
                } catch {
                    result.findings = error.diagnostics.map { LintFinding($0) }
                }
            case .failure(let error): result.findings = error.diagnostics.map { LintFinding($0) }
            }
        case .other:
            break
        }
        result.reads = log.all.union([path])
        return result
    }

    /// A tests file's problems and its policy, read as `retry-policy test`
    /// reads them: the file, then the policy its `policy:` names.
    func checkTests(path: String, root: PolicyRoot) -> ([LintFinding], PolicyTestSuite?, Policy?) {
        let text: String
        switch root.readFile(path) {
        case .success(let bytes): text = String(decoding: bytes, as: UTF8.self)
        case .failure(let error): return (error.diagnostics.map { LintFinding($0) }, nil, nil)
        }
        let suite: PolicyTestSuite
        do {
            suite = try PolicyTestSuite(yaml: text, path: path)
        } catch {
            return (error.diagnostics.map { LintFinding($0) }, nil, nil)
        }
        let policyPath = LintRun.resolve(suite.policyReference, relativeTo: path)
        let reference = suite.policyLocation ?? SourceLocation(file: path, line: 1, column: 1)
        let bytes: [UInt8]
        switch root.readReferencedFile(policyPath, reportedAt: reference) {
        case .success(let read): bytes = read
        case .failure(let error):
            return (error.diagnostics.map {
                var shown = LintFinding($0)
                shown.message = "the policy under test: " + shown.message
                return shown
            }, suite, nil)
        }
        do {
            return ([], suite, try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: policyPath))
        } catch {
            let first = error.diagnostics.first.map { " (\($0.citation))" } ?? ""
            return ([LintFinding(
                id: LoaderRule.referenceProblem.id, severity: .error, location: reference,
                message: "the policy under test cannot be loaded: it has \(plural(error.diagnostics.count, "problem"))\(first)")],
                suite, nil)
        }
    }
}

extension LintFinding {
    /// The finding as a protocol diagnostic on `text`, the document at
    /// `path`. A finding located in another file (an extended policy)
    /// is shown on the document's first line and points there.
    func lspDiagnostic(in text: DocumentText, path: String, uri: (String) -> String) -> LSPValue {
        var fields: [String: LSPValue] = [
            "severity": .int(severity == .error ? 1 : severity == .warning ? 2 : 3),
            "code": .string(id),
            "source": "retry-policy",
            "message": .string(message + (suggestion.map { "\nsuggestion: " + $0 } ?? "")),
        ]
        if location.file == path {
            fields["range"] = text.wordRange(line: location.line, column: location.column).json
        } else {
            fields["range"] = text.wordRange(line: 1, column: 1).json
            let point = LSPPosition(line: max(location.line - 1, 0), character: max(location.column - 1, 0))
            fields["relatedInformation"] = [[
                "location": ["uri": .string(uri(location.file)), "range": LSPRange(start: point, end: point).json],
                "message": .string("reported at \(location.description)"),
            ]]
        }
        return .object(fields)
    }
}
