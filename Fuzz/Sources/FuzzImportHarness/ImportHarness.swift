#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyYAML

/// What every importer fuzz target checks, for one foreign format.
///
/// The bytes are a file of `format` exactly as read from disk (invalid
/// UTF-8 and NUL bytes included). Format detection must answer, never trap.
/// An import must end in a policy or in located diagnostics: without a
/// selection, with each of the first few names the file offers, and all
/// at once (`import --output DIR`). An imported policy must decide (no
/// negative delay) and lint, and the policy file `import` writes for it
/// must load back: a file the tool writes and then refuses is a defect.
/// The path sits in a directory that does not exist.
public struct ImportHarness: Sendable {
    public var format: InteropFormat
    /// The file the input stands for; its base name becomes the policy name.
    public var path: String

    public init(format: InteropFormat, path: String) {
        self.format = format
        self.path = path
    }

    /// One harness for each format `InteropRegistry` lists, or for the
    /// one FUZZ_IMPORT_FORMAT names.
    public static func registered() -> [ImportHarness] {
        let only = getenv("FUZZ_IMPORT_FORMAT").map { String(cString: $0) }
        if let only, InteropFormat(rawValue: only) == nil {
            fatalError("FUZZ_IMPORT_FORMAT=\(only): expected one of \(InteropFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return InteropFormat.allCases.filter { only == nil || $0.rawValue == only }.map { format in
            ImportHarness(format: format, path: "/nonexistent-fuzz-directory/\(format)-config")
        }
    }

    /// The libFuzzer callback's body.
    public func run(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        _ = Importer.detectFormat(bytes: bytes, path: path)
        importAndCheck(bytes, selection: nil)

        let file = ForeignFile(bytes: bytes, path: path)
        let candidates: [ImportCandidate]
        do {
            candidates = try Importer.candidates(file, from: format)
        } catch {
            checkLocated(error)
            return 0
        }
        // The names `--select` takes, and an alias, and a name that is not there.
        var selections = candidates.prefix(3).map(\.name)
        if let alias = candidates.lazy.flatMap(\.aliases).first { selections.append(alias) }
        selections.append((candidates.first?.name ?? "") + "-absent")
        for selection in selections {
            importAndCheck(bytes, selection: selection)
        }

        do {
            let (policies, errors) = try Importer.importEvery(file, from: format)
            for diagnostic in errors { checkLocated(diagnostic) }
            for imported in policies { checkImported(imported, seed: UInt64(size)) }
        } catch {
            checkLocated(error)
        }
        return 0
    }

    func checkLocated(_ error: InteropError) {
        check(!error.diagnostics.isEmpty, "an import error without diagnostics")
        for diagnostic in error.diagnostics { checkLocated(diagnostic) }
    }

    func checkLocated(_ diagnostic: Diagnostic) {
        check(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "unlocated: \(diagnostic)")
        _ = diagnostic.description
    }

    func importAndCheck(_ bytes: [UInt8], selection: String?) {
        let imported: ImportedPolicy
        do {
            imported = try Importer.importPolicy(bytes: bytes, path: path, from: format, selection: selection)
        } catch {
            checkLocated(error)
            return
        }
        checkImported(imported, seed: UInt64(bytes.count))
    }

    func checkImported(_ imported: ImportedPolicy, seed: UInt64) {
        for warning in imported.warnings { _ = warning.description }
        let policy = imported.policy
        Self.decide(policy, seed: seed)
        let yaml: String
        do {
            yaml = try PolicyWriter.yaml(policy, comments: imported.fileComments)
        } catch {
            fatalError("the imported policy cannot be written: \(error)")
        }
        let policyPath = "/nonexistent-fuzz-directory/imported.yaml"
        let linter = PolicyLinter()
        let findings = linter.check(policy: policy, context: LintContext(file: policyPath))
        _ = linter.finalize(findings, source: yaml, file: policyPath)

        do {
            _ = try PolicyLoader().loadDocument(bytes: Array(yaml.utf8), path: policyPath)
        } catch {
            fatalError("the imported policy's YAML does not load back:\n\(error.diagnostics.map(\.description).joined(separator: "\n"))\n--- YAML:\n\(yaml)")
        }
    }

    /// Decides a few outcomes on attempts 1-3 for GET and POST, as
    /// `FuzzPolicyLoader` does.
    static func decide(_ policy: Policy, seed: UInt64) {
        let decider = RetryDecider(policy: policy)
        var generator = SplitMix64(seed: seed)
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        let outcomes: [AttemptOutcome] = [
            .status(200), .status(204), .response(status: 429, headers: ["Retry-After": "5"]),
            .response(status: 503, headers: ["grpc-retry-pushback-ms": "250"]), .status(503),
            .status(404), .transport(.timeout), .transport(.connectionRefused), .transport(.cancelled),
        ]
        for outcome in outcomes {
            for attempt in 1...3 {
                for method in [HTTPMethod.get, .post] {
                    let decision = decider.decide(
                        DecisionInput(outcome: outcome, attempt: attempt, method: method, now: now), using: &generator)
                    if let delay = decision.delay { check(delay >= .zero, "negative delay \(delay)") }
                    _ = decision.error?.message
                }
            }
        }
        _ = decider.admit(now: now)
    }
}

/// A precondition whose message survives an optimized build (`precondition`
/// drops it with `-O`), so that a crash report says what was wrong.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError(message(), file: file, line: line) }
}

// MARK: libFuzzer's driver

/// Hands control to libFuzzer's driver with `callback` as the target; each
/// target's `<Target>_main` (the entry point SwiftPM links) calls this.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
