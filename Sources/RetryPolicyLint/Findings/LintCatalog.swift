/// Every semantic rule, in id order. Ids are stable: a retired rule's id is
/// never reused.
public enum LintCatalog {
    static let policyChecks: [any PolicyCheck.Type] = [
        ShadowedRule.self, UncoveredInputs.self, UnreachableAttempt.self, BackoffMaxBelowInitial.self,
        ShrinkingBackoff.self, UncappedRetryAfter.self, MissingJitter.self, RetriedClientError.self,
        ImplicitIdempotency.self, DeadRetryConfiguration.self, RetriedNotImplemented.self,
        RateLimitWithoutRetryAfter.self, BudgetInNumbers.self, ParityMismatch.self,
    ]

    public static let rules: [LintRule] =
        (policyChecks.map { $0.rule } + [RetryAmplification.rule, UnusedSuppression.rule]).sorted { $0.id < $1.id }

    public static func rule(id: String) -> LintRule? {
        rules.first { $0.id == id.uppercased() }
    }

    /// The rule that structural problems found by the loader are reported
    /// under in rule metadata: the loader's own ids (RP0xx) are listed with
    /// this explanation.
    public static func loaderRule(id: String) -> LintRule {
        LintRule(
            id: id, name: "policy-structure", defaultSeverity: .error,
            summary: "The file is not a valid policy: the loader rejected it.",
            explanation: """
                Ids RP001-RP099 are structural problems found while loading a policy file: YAML \
                syntax, unknown or misspelled keys, wrong types, malformed durations and status \
                patterns, undeclared error kinds, unreadable `extends` or `parity` files. The message \
                says what was expected at that position and what was found, with a suggestion when one \
                is obvious. The format is specified in docs/policy-format.md.
                """)
    }
}
