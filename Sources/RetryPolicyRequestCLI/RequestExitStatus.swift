#if AsyncHTTPClient && Postgres  // the traits; without them RequestTool says how to build this tool
import RetryPolicyCommandSupport
import RetryPolicyCore

/// Process exit codes for a request that ran under a policy, so shell
/// scripts and CI pipelines can branch on the error kind (`case $? in 13)`)
/// the way they branch on `curl`'s codes.
///
/// | code | meaning |
/// |---:|---|
/// | 0 | success |
/// | 1 | the policy file does not load (diagnostics on stderr) |
/// | 2 | usage or I/O error |
/// | 10 | `no_fill` |
/// | 11 | `network_error` |
/// | 12 | `status_429` |
/// | 13 | `status_5xx` |
/// | 14 | `timeout` |
/// | 15 | `internal_error` |
/// | 16 | `invalid_placement` |
/// | 17 | `unauthorized` |
/// | 18 | `not_found` |
/// | 19 | `cancelled` |
/// | 20 | `decoding_failed` |
/// | 30 | any kind a policy declares itself (`errors:`) |
enum RequestExitStatus {
    static let success = ExitStatus.clean
    /// The same codes as every other `retry-policy` subcommand: 1 when a
    /// policy file is wrong, 2 when the tool was called wrongly.
    static let policyInvalid = ExitStatus.findings
    static let usage = ExitStatus.usage
    static let customKind: Int32 = 30

    /// The code for a request that failed with `kind`.
    static func code(for kind: SDKError.Kind) -> Int32 {
        switch kind {
        case .noFill: 10
        case .networkError: 11
        case .status429: 12
        case .status5xx: 13
        case .timeout: 14
        case .internalError: 15
        case .invalidPlacement: 16
        case .unauthorized: 17
        case .notFound: 18
        case .cancelled: 19
        case .decodingFailed: 20
        default: customKind
        }
    }

    /// Every standard kind with its code, for documentation and tests.
    static var table: [(kind: SDKError.Kind, code: Int32)] {
        SDKError.Kind.standard.map { ($0, code(for: $0)) }
    }
}
#endif
