import RetryPolicyCore

/// RP115: policies declared at parity decide differently.
enum ParityMismatch: PolicyCheck {
    static let rule = LintRule(
        id: "RP115", name: "parity-mismatch", defaultSeverity: .error,
        summary: "Policies declared at parity decide differently for some inputs.",
        explanation: """
            `parity:` lists policies that must behave identically, such as the iOS and Android builds \
            of one SDK. A parity table in a document is a claim; this rule checks it by deciding every \
            status 100-599 and every transport class at every attempt number and method with both \
            policies and reporting the inputs where the action, error kind, stop reason or delay \
            bounds differ, grouped into ranges. Platform-specific error *names* may differ; the kinds \
            may not. `retry-policy diff A B` prints the full list.
            """)

    /// The most difference groups a finding lists before summarising.
    static let shownDifferences = 3

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        var findings: [LintFinding] = []
        for reference in policy.parity {
            guard let other = context.parityPolicies[reference] else { continue }
            let comparison = context.parityComparisons[reference] ?? PolicyDiff.compare(policy, other)
            guard !comparison.isIdentical else { continue }
            let shown = comparison.differences.prefix(shownDifferences).map { difference in
                "\(difference.inputText): \(difference.left) here, \(difference.right) there"
            }
            var message = "decides differently from \(reference) (\(other.name)) on \(comparison.differingInputs) of \(comparison.comparedInputs) inputs: "
                + shown.joined(separator: "; ")
            if comparison.differences.count > shownDifferences {
                let more = comparison.differences.count - shownDifferences
                message += "; and \(more) more \(more == 1 ? "range" : "ranges")"
            }
            findings.append(finding(
                at: context.parityLocation ?? context.place(policy.location, policy), message,
                suggestion: "run `retry-policy diff` on the two files for every difference"))
        }
        return findings
    }
}
