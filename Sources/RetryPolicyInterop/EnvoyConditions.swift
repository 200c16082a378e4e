import RetryPolicyCore

/// Envoy's retry conditions (`retry_on`) in policy terms: which statuses
/// and transport failures each one retries.
enum EnvoyConditions {
    /// Connection failures: Envoy's `connect-failure` (also part of `5xx`
    /// and `gateway-error`).
    static let connectFailures: Set<TransportFailure> = [.connectionRefused, .dns, .tls, .offline]
    /// No response at all (disconnect, reset, read or per-try timeout):
    /// Envoy's `reset` (also part of `5xx` and `gateway-error`).
    static let resets: Set<TransportFailure> = [.connectionLost, .timeout]
    static let gatewayErrors: Set<Int> = [502, 503, 504]
    static let serverErrors = Set(500...599)

    /// The gRPC status a gRPC `retry_on` condition retries
    /// (`x-envoy-retry-grpc-on`: `cancelled`, `deadline-exceeded`,
    /// `internal`, `resource-exhausted`, `unavailable`).
    static func grpcStatus(_ condition: String) -> GRPCStatusCode? {
        GRPCStatusCode.allCases.first { $0.envoyCondition == condition }
    }

    /// What a set of conditions and listed status codes retries.
    static func retried(conditions: [String], codes: [Int]) -> (statuses: Set<Int>, transports: Set<TransportFailure>) {
        var statuses: Set<Int> = []
        var transports: Set<TransportFailure> = []
        for condition in conditions {
            switch condition {
            case "5xx":
                statuses.formUnion(serverErrors)
                transports.formUnion(connectFailures.union(resets))
            case "gateway-error":
                statuses.formUnion(gatewayErrors)
                transports.formUnion(connectFailures.union(resets))
            case "reset": transports.formUnion(resets)
            case "connect-failure": transports.formUnion(connectFailures)
            case "retriable-4xx": statuses.insert(409)
            case "retriable-status-codes": statuses.formUnion(codes.filter { StatusPattern.validCodes.contains($0) })
            default: break
            }
        }
        return (statuses, transports)
    }

    /// The conditions (and listed codes) for what a policy retries, with
    /// a warning for every difference.
    static func conditions(for behaviour: PolicyBehaviour, target: String) -> (conditions: [String], codes: [Int], warnings: [InteropWarning]) {
        var statuses = behaviour.retriedStatuses
        var conditions: [String] = []
        if statuses.isSuperset(of: serverErrors) {
            conditions.append("5xx")
            statuses.subtract(serverErrors)
        } else if statuses.isSuperset(of: gatewayErrors) {
            conditions.append("gateway-error")
            statuses.subtract(gatewayErrors)
        }
        let implied = !conditions.isEmpty
        var transports: Set<TransportFailure> = implied ? connectFailures.union(resets) : []
        if !implied {
            if !behaviour.retriedTransports.isDisjoint(with: connectFailures) {
                conditions.append("connect-failure")
                transports.formUnion(connectFailures)
            }
            if !behaviour.retriedTransports.isDisjoint(with: resets) {
                conditions.append("reset")
                transports.formUnion(resets)
            }
        }
        if statuses.contains(409) {
            conditions.append("retriable-4xx")
            statuses.remove(409)
        }
        let codes = statuses.sorted()
        if !codes.isEmpty { conditions.append("retriable-status-codes") }
        let grpc = GRPCStatusCode.allCases.filter(behaviour.retriedGRPC.contains)
        conditions += grpc.compactMap(\.envoyCondition)

        var warnings: [InteropWarning] = []
        let at = behaviour.location("rules")
        let unconditioned = grpc.filter { $0.envoyCondition == nil }
        if !unconditioned.isEmpty {
            warnings.append(InteropWarning(
                feature: "rules", location: at,
                message: "\(target) has a gRPC retry condition for CANCELLED, DEADLINE_EXCEEDED, INTERNAL, RESOURCE_EXHAUSTED and UNAVAILABLE only; gRPC \(unconditioned.map(\.name).joined(separator: ", ")) not retried"))
        }
        let extra = transports.subtracting(behaviour.retriedTransports)
        if !extra.isEmpty {
            warnings.append(InteropWarning(
                feature: "rules", location: at,
                message: "\(target)'s \(conditions.filter { ["5xx", "gateway-error", "connect-failure", "reset"].contains($0) }.joined(separator: ", ")) also retries transport \(extra.sorted().map(\.rawValue).joined(separator: ", ")), which the policy does not retry"))
        }
        let unexpressible = behaviour.retriedTransports.subtracting(connectFailures).subtracting(resets)
        if !unexpressible.isEmpty {
            warnings.append(InteropWarning(
                feature: "rules", location: at,
                message: "\(target) has no retry condition for transport \(unexpressible.sorted().map(\.rawValue).joined(separator: ", ")); not retried"))
        }
        return (conditions, codes, warnings)
    }

    /// Envoy's backoff before retry `k`: random in [0, min(base x 2^(k-1),
    /// max)) (`JitteredExponentialBackOffStrategy`, Envoy
    /// source/common/common/backoff_strategy.cc).
    static func bound(base: Duration, max: Duration, retry k: Int) -> Duration {
        Backoff(initial: base, max: max, multiplier: 2, jitter: .full).bounds(forRetry: k, previousDelay: nil).upperBound
    }
}
