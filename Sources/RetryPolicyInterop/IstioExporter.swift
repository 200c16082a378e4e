import RetryPolicyCore

/// Policy to an Istio VirtualService HTTP route's `timeout` and `retries`.
public enum IstioExporter {
    /// Istio sets no backoff: Envoy's default 25ms base, 250ms max.
    package static let backoffBase: Duration = .milliseconds(25)
    public static let backoffMax: Duration = .milliseconds(250)

    public static func export(_ policy: Policy, file: String) -> ExportResult {
        let behaviour = PolicyBehaviour(policy: policy, file: file)
        var warnings = behaviour.commonWarnings(target: "Istio")
        var retries: [InteropValue.Field] = []
        if behaviour.retriesSomething {
            let (conditions, codes, conditionWarnings) = EnvoyConditions.conditions(for: behaviour, target: "Istio")
            warnings += conditionWarnings
            retries.append(.init("attempts", .int(policy.attempts - 1)))
            if let perAttempt = policy.timeouts.perAttempt {
                retries.append(.init("perTryTimeout", .string(ForeignDuration.protoText(perAttempt))))
            }
            retries.append(.init("retryOn", .string((conditions + codes.map { "\($0)" }).joined(separator: ","))))
            let istioWarnings = behaviour.backoffWarnings(target: "Istio", retries: policy.attempts - 1) {
                EnvoyConditions.bound(base: backoffBase, max: backoffMax, retry: $0)
            }
            for warning in istioWarnings {
                warnings.append(InteropWarning(
                    feature: warning.feature, location: warning.location,
                    message: warning.message + " (Istio sets no backoff: Envoy's 25ms base, 250ms max)"))
            }
            if behaviour.honoursServerDelays {
                warnings.append(InteropWarning(
                    feature: "retry_after", location: behaviour.location("retry_after.honor", "retry_after"),
                    message: "Istio cannot configure Envoy's rate-limited backoff; server delays (\(policy.retryAfter.headers.map(\.name).joined(separator: ", "))) are ignored"))
            }
        } else {
            retries.append(.init("attempts", .int(0)))
        }
        if policy.budget != nil { warnings.append(EnvoyExporter.budgetWarning(behaviour, target: "Istio")) }
        if let warning = behaviour.breakerWarning(
            target: "Istio", instead: "a DestinationRule's outlierDetection ejects failing hosts")
        {
            warnings.append(warning)
        }
        if let warning = behaviour.hedgingWarning(target: "Istio", instead: "a VirtualService's retries have no hedging") {
            warnings.append(warning)
        }
        if let warning = behaviour.rateLimitWarning(target: "Istio") { warnings.append(warning) }
        var route: [InteropValue.Field] = []
        if let total = policy.timeouts.total { route.append(.init("timeout", .string(ForeignDuration.protoText(total)))) }
        route.append(.init("retries", .object(retries)))
        return ExportResult(format: .istio, document: .object(route), warnings: warnings)
    }
}
