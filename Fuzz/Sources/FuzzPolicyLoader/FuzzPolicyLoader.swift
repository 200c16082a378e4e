import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

/// libFuzzer entry point for policy files.
///
/// The bytes are a policy or stack file exactly as read from disk (invalid
/// UTF-8 and NUL bytes included). Loading must end in a document or in
/// located diagnostics, never a trap, hang or runaway memory. A policy that
/// loads is then compiled, decided on and linted, because a file the loader
/// accepts is one every later stage must survive. The path sits in a
/// directory that does not exist, so relative `extends` cannot read files.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPolicyLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let path = "/nonexistent-fuzz-directory/policy.yaml"
    let document: PolicyDocument
    do {
        document = try PolicyLoader().loadDocument(bytes: bytes, path: path)
    } catch {
        precondition(!error.diagnostics.isEmpty, "a load error without diagnostics")
        for diagnostic in error.diagnostics {
            precondition(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "unlocated: \(diagnostic)")
            _ = diagnostic.description
        }
        return 0
    }
    guard case .policy(let policy) = document else { return 0 }

    let decider = RetryDecider(policy: policy)
    var generator = SplitMix64(seed: UInt64(size))
    let now = Timestamp(secondsSince1970: 1_700_000_000)
    let outcomes: [AttemptOutcome] = [
        .status(200), .status(204), .response(status: 429, headers: ["Retry-After": "5"]), .status(503),
        .status(404), .transport(.timeout), .transport(.cancelled),
    ]
    for outcome in outcomes {
        for attempt in 1...3 {
            for method in [HTTPMethod.get, .post] {
                let decision = decider.decide(
                    DecisionInput(outcome: outcome, attempt: attempt, method: method, now: now), using: &generator)
                if let delay = decision.delay { precondition(delay >= .zero, "negative delay \(delay)") }
                _ = decision.error?.message
            }
        }
    }
    _ = decider.admit(now: now)

    let linter = PolicyLinter()
    let findings = linter.check(policy: policy, context: LintContext(file: path))
    _ = linter.finalize(findings, source: String(decoding: bytes, as: UTF8.self), file: path)
    return 0
}

/// SwiftPM links an executable's entry point as `FuzzPolicyLoader_main`; hand
/// control to libFuzzer's driver from there.
@_cdecl("FuzzPolicyLoader_main")
public func fuzzPolicyLoaderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzPolicyLoader)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
