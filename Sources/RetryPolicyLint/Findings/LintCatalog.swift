import RetryPolicyYAML

/// Every semantic rule, in id order. Ids are stable: a retired rule's id is
/// never reused.
public enum LintCatalog {
    static let policyChecks: [any PolicyCheck.Type] = [
        ShadowedRule.self, UncoveredInputs.self, UnreachableAttempt.self, BackoffMaxBelowInitial.self,
        ShrinkingBackoff.self, UncappedRetryAfter.self, MissingJitter.self, RetriedClientError.self,
        ImplicitIdempotency.self, DeadRetryConfiguration.self, RetriedNotImplemented.self,
        RateLimitWithoutRetryAfter.self, BudgetInNumbers.self, ParityMismatch.self, BudgetNeverAllowsRetry.self,
        ThrottlingNeverAllowsRetry.self, ThrottlingKindNeverRetried.self, BreakerNeverOpens.self,
        UnboundedServerRetries.self, HedgingNonIdempotent.self, HedgeDelayBeyondTimeout.self, HedgingNeverHedges.self,
        UnusedCondition.self, RatioBudgetNeverAllowsRetry.self, RatioBudgetNeverBounds.self,
    ]

    public static let rules: [LintRule] =
        (policyChecks.map { $0.rule } + [RetryAmplification.rule, UnusedSuppression.rule, TwoRetryLayers.rule])
        .sorted { $0.id < $1.id }

    public static func rule(id: String) -> LintRule? {
        rules.first { $0.id == id.uppercased() }
    }

    /// Metadata for a structural problem the loader reports (RP0xx), taken
    /// from the loader's own rule table so the two cannot drift apart.
    public static func loaderRule(id: String) -> LintRule {
        guard let rule = LoaderRule(rawValue: id.uppercased()) else {
            return LintRule(
                id: id, name: "policy-structure", defaultSeverity: .error,
                summary: "The file is not a valid policy: the loader rejected it.",
                explanation: "Structural problems found while loading a policy file; see docs/policy-format.md.")
        }
        return LintRule(
            id: rule.id, name: kebabCase(String(describing: rule)), defaultSeverity: .error,
            summary: rule.title.prefix(1).uppercased() + rule.title.dropFirst() + ".",
            explanation: rule.explanation)
    }

    /// `unknownKey` -> `unknown-key`.
    static func kebabCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "-" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
