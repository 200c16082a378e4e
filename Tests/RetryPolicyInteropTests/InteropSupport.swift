import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyYAML

/// Loads policy YAML as the CLI does.
func loadPolicy(_ yaml: String, path: String = "imported.yaml") throws -> Policy {
    try PolicyLoader(root: .wholeFileSystem()).loadPolicy(yaml: yaml, path: path)
}

/// Exports `policy` to `format` and imports the result again.
func roundTrip(_ policy: Policy, through format: InteropFormat) throws -> (export: ExportResult, imported: ImportedPolicy, reloaded: Policy) {
    guard let export = format.handler.export(policy, file: "policy.yaml") else {
        throw RoundTripFailure(message: "\(format) is not an export target")
    }
    let imported = try Importer.importPolicy(bytes: Array(export.text.utf8), path: "exported.\(format == .grpc ? "json" : "yaml")", from: format)
    let reloaded = try loadPolicy(policyFile(imported))
    return (export, imported, reloaded)
}

/// A random policy inside `format`'s expressible subset, built from one
/// seed, written as YAML and read back by the loader (so the policy is one
/// a user could write).
func expressiblePolicy(seed: Int, format: InteropFormat) throws -> Policy {
    var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
    func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
    func chance() -> Bool { Bool.random(using: &random) }
    var policy: ImportedPolicy
    switch format {
    case .grpc:
        let codes: [GRPCStatus] = [.unavailable, .deadlineExceeded, .internal, .unauthenticated, .permissionDenied, .unimplemented, .unknown]
        var chosen = codes.filter { _ in chance() }
        if chosen.isEmpty { chosen = [pick(codes)] }
        let initial = Int.random(in: 1...2000, using: &random)
        policy = ImportedPolicy(
            name: "grpc-\(seed)", source: "generated", format: .grpc, attempts: Int.random(in: 2...5, using: &random),
            backoff: Backoff(initial: .milliseconds(initial), max: .milliseconds(Int.random(in: 1...30000, using: &random)),
                             multiplier: pick([1, 1.5, 2, 3]), jitter: .full))
        for code in chosen {
            policy.retriedStatuses.formUnion(code.httpStatuses)
            policy.retriedTransports.formUnion(code.transports)
        }
        policy.retryAfter = RetryAfterPolicy(honor: true, headers: [.init(name: "grpc-retry-pushback-ms", format: .milliseconds)])
        if chance() { policy.timeouts.total = .milliseconds(Int.random(in: 1...60000, using: &random)) }
        if chance() {
            // gRPC throttling itself: exactly expressible.
            policy.budget = .grpc(maxTokens: Int.random(in: 1...1000, using: &random),
                                  tokenRatioThousandths: Int.random(in: 1...3000, using: &random))
        }
    case .envoy, .istio:
        var statuses: Set<Int> = []
        var transports: Set<TransportFailure> = []
        switch Int.random(in: 0...2, using: &random) {
        case 0:
            statuses.formUnion(500...599)
            transports.formUnion(EnvoyConditionsForTests.all)
        case 1:
            statuses.formUnion([502, 503, 504])
            transports.formUnion(EnvoyConditionsForTests.all)
        default:
            if chance() { transports.formUnion(EnvoyConditionsForTests.connect) }
            if chance() { transports.formUnion(EnvoyConditionsForTests.reset) }
        }
        if chance() { statuses.insert(409) }
        for _ in 0..<Int.random(in: 0...3, using: &random) { statuses.insert(pick([408, 425, 429, 500, 503, 520, 302, 404])) }
        if statuses.isEmpty && transports.isEmpty { statuses.insert(429) }
        let backoff = format == .istio
            ? Backoff(initial: .milliseconds(25), max: .milliseconds(250), multiplier: 2, jitter: .full)
            : {
                let initial = Int.random(in: 1...2000, using: &random)
                return Backoff(initial: .milliseconds(initial), max: .milliseconds(initial * Int.random(in: 1...20, using: &random)), multiplier: 2, jitter: .full)
            }()
        policy = ImportedPolicy(name: "\(format)-\(seed)", source: "generated", format: format,
                                attempts: Int.random(in: format == .istio ? 2...6 : 1...6, using: &random), backoff: backoff)
        policy.retriedStatuses = statuses
        policy.retriedTransports = transports
        if chance() { policy.timeouts.perAttempt = .milliseconds(Int.random(in: 1...10000, using: &random)) }
        if chance() { policy.timeouts.total = .milliseconds(Int.random(in: 1...60000, using: &random)) }
    default:
        fatalError("not an export target")
    }
    return try loadPolicy(policyFile(policy), path: "generated-\(seed).yaml")
}

/// Envoy's transport groups, restated so that the tests do not take them
/// from the code under test.
enum EnvoyConditionsForTests {
    static let connect: Set<TransportFailure> = [.connectionRefused, .dns, .tls, .offline]
    static let reset: Set<TransportFailure> = [.connectionLost, .timeout]
    static var all: Set<TransportFailure> { connect.union(reset) }
}

/// The policy file `import` writes for `imported`.
func policyFile(_ imported: ImportedPolicy) throws -> String {
    try PolicyWriter.yaml(imported.policy, comments: imported.fileComments)
}

struct RoundTripFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
