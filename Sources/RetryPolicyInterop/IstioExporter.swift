import RetryPolicyCore

/// Policy to an Istio VirtualService HTTP route's `timeout` and `retries`,
/// and, for a ratio budget, a DestinationRule with its `retryBudget`.
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
        var following: [InteropValue] = []
        if let ratio = policy.budget?.ratio {
            let (block, written, percentWarning) = EnvoyRetryBudget.write(
                ratio, spelling: .istio(destinationRule: policy.name), behaviour: behaviour)
            if let percentWarning { warnings.append(percentWarning) }
            following.append(IstioDestinationRule.export(retryBudget: block, name: policy.name))
            warnings.append(budgetWarning(written, behaviour))
        } else if policy.budget != nil {
            warnings.append(EnvoyExporter.budgetWarning(behaviour, target: "Istio"))
        }
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
        return ExportResult(format: .istio, document: .object(route), warnings: warnings, following: following)
    }

    /// What the DestinationRule written for a ratio budget changes: Istio
    /// caps retries in flight (a concurrency) where the policy counts
    /// retries over a window (a rate), and the rule's host is a guess.
    static func budgetWarning(_ ratio: RatioRetryBudget, _ behaviour: PolicyBehaviour) -> InteropWarning {
        let percent = NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)
        return InteropWarning(
            feature: "budget", location: behaviour.location("budget.retry_percent", "budget.preset", "budget"),
            message: "the DestinationRule's retryBudget caps retries in flight at \(percent) % of active requests (at least \(ratio.minRetriesPerSecond) at once), where the policy allows \(percent) % of the requests of the last \(ratio.window.formattedForHumans) plus \(ratio.minRetriesPerSecond) retries a second: the window and the rate are lost; its spec.host is the policy's name \(DisplayText.escaped(behaviour.policy.name)): set it to the service's host")
    }
}
