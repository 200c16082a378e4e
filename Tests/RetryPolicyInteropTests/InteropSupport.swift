import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyTestSupport
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
    var choices = GeneratorChoices(seed: UInt64(truncatingIfNeeded: seed))
    // The numbers from the one generator, inside what the format states;
    // which failures are retried from the format's own vocabulary, drawn
    // from the same choices.
    let drawn = try expressibleNumbers(format).policy(choices: &choices)
    func pick<T>(_ values: [T]) -> T { choices.pick(values) }
    func chance() -> Bool { choices.chance(2) }
    var policy = ImportedPolicy(
        name: "\(format)-\(seed)", source: "generated", format: format, attempts: drawn.attempts, backoff: drawn.backoff)
    policy.timeouts = drawn.timeouts
    policy.budget = drawn.budget
    switch format {
    case .grpc:
        // Any gRPC status but OK, as grpc rules: the codes travel as they are.
        let codes = GRPCStatusCode.allCases.filter { $0 != .ok }
        var chosen = codes.filter { _ in chance() }
        if chosen.isEmpty { chosen = [pick(codes)] }
        policy.grpcOnly = true
        policy.retriedGRPC = Set(chosen)
        policy.retryAfter = RetryAfterPolicy(honor: true)
    case .envoy, .istio:
        var statuses: Set<Int> = []
        var transports: Set<TransportFailure> = []
        switch choices.int(in: 0...2) {
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
        for _ in 0..<choices.int(in: 0...3) { statuses.insert(pick([408, 425, 429, 500, 503, 520, 302, 404])) }
        if statuses.isEmpty && transports.isEmpty { statuses.insert(429) }
        policy.retriedStatuses = statuses
        policy.retriedTransports = transports
    default:
        throw RoundTripFailure(message: "\(format) is not an export target")
    }
    return try loadPolicy(policyFile(policy), path: "generated-\(seed).yaml")
}

/// The generator's settings for what `format` can state exactly: its
/// attempts, an exponential backoff with full jitter and the multipliers
/// it has, the timeouts and the budget it has.
func expressibleNumbers(_ format: InteropFormat) throws -> PolicyGenerator {
    var generator = PolicyGenerator()
    generator.linearBackoff = false
    generator.jitters = [.full]
    generator.rules = .standard
    generator.budget = .none
    switch format {
    case .grpc:
        generator.attempts = 2...5
        generator.initialDelay = .range(1...2000)
        generator.maxDelay = .within(.range(1...30_000))
        generator.multipliers = [1, 1.5, 2, 3]
        generator.perAttemptTimeout = .oneOf([nil])
        generator.totalTimeout = .sometimes(1...60_000)
        // gRPC throttling itself: exactly expressible.
        generator.budget = .sometimesGRPC(maxTokens: 1...1000, tokenRatioThousandths: 1...3000)
    case .envoy:
        generator.attempts = 1...6
        generator.initialDelay = .range(1...2000)
        generator.maxDelay = .times(.range(1...20))
        generator.multipliers = [2]
        generator.perAttemptTimeout = .sometimes(1...10_000)
        generator.totalTimeout = .sometimes(1...60_000)
    case .istio:
        // Istio's fixed backoff: 25ms doubling to 250ms.
        generator.attempts = 2...6
        generator.initialDelay = .oneOf([25])
        generator.maxDelay = .within(.oneOf([250]))
        generator.multipliers = [2]
        generator.perAttemptTimeout = .sometimes(1...10_000)
        generator.totalTimeout = .sometimes(1...60_000)
    default:
        throw RoundTripFailure(message: "\(format) is not an export target")
    }
    return generator
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
