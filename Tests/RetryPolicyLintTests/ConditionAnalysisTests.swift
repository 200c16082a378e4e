import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicyLint

/// Declared conditions in lint and in the error table.
@Suite struct ConditionAnalysisTests {
    static func policy(conditions: [AttemptCondition], named: [AttemptCondition]) -> Policy {
        var policy = cleanPolicy()
        policy.conditions = conditions
        for condition in named { policy.rules.append(Rule(conditions: [condition], error: .status5xx, action: .retry)) }
        return policy
    }

    @Test func rp125ReportsEveryDeclaredConditionNoRuleNames() {
        let policy = Self.policy(conditions: ["malformed_body", "maintenance_page"], named: ["malformed_body"])
        let found = PolicyLinter().check(policy: policy, context: LintContext(file: "policy.yaml")).filter { $0.id == "RP125" }
        #expect(found.count == 1)
        #expect(found.first?.message.contains("condition 'maintenance_page' is declared but no rule names it") == true)
        let quiet = Self.policy(conditions: ["malformed_body"], named: ["malformed_body"])
        #expect(PolicyLinter().check(policy: quiet, context: LintContext(file: "policy.yaml")).filter { $0.id == "RP125" }.isEmpty)
    }

    @Test func theErrorTableHasARowPerDeclaredCondition() {
        let policy = Self.policy(conditions: ["malformed_body", "maintenance_page"], named: ["malformed_body"])
        let table = ErrorTable(policy: policy)
        let rows = table.rows.filter { $0.condition != nil }
        #expect(rows.map(\.inputText) == ["Condition malformed_body", "Condition maintenance_page"])
        #expect(rows[0].decision.action == .retry && rows[0].error == .status5xx)
        #expect(rows[1].error == cleanPolicy().defaultRule?.error)
        #expect(table.markdown.contains("| Condition malformed_body | `status_5xx` | Yes"))
        // A policy without conditions keeps its table as it was.
        #expect(ErrorTable(policy: cleanPolicy()).rows.allSatisfy { $0.condition == nil })
    }
}
