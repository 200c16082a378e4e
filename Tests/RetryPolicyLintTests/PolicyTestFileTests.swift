import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import Testing

@Suite("Policy test files are read strictly")
struct PolicyTestFileTests {
    func problems(_ yaml: String) -> [Diagnostic] {
        do {
            _ = try PolicyTestSuite(yaml: yaml, path: "p.tests.yaml")
            return []
        } catch {
            return error.diagnostics
        }
    }

    @Test("an empty responses list is an error at its sequence, as the schema says (minItems 1)")
    func emptyResponses() {
        let found = problems("sequences:\n  - name: nothing\n    responses: []\n    expect: {result: success}\n")
        #expect(found.map(\.id) == ["RP019"], "\(found)")
        #expect(found.first?.location == SourceLocation(file: "p.tests.yaml", line: 2, column: 5))
    }

    @Test("a misspelt key gets the same suggestion as in a policy file")
    func suggestion() {
        let found = problems("cases:\n  - name: a\n    status: 503\n    expcet: {action: retry}\n")
        #expect(found.contains { $0.id == "RP010" && $0.suggestion == "did you mean 'expect'?" }, "\(found)")
    }
}
