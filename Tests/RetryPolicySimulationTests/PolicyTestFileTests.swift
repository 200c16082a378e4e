import RetryPolicyCore
import RetryPolicySimulation
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

    @Test("values are read by the policy loader's reader: key path, what was expected, what was found, a suggestion")
    func sharedWording() {
        let found = problems("""
            cases:
              - name: a
                status: "503"
                idempotent: yes
                elapsed: 10
                expect: {action: retyr}
            sequences:
              - responses: [503]
                expect: {result: retry}

            """)
        let byLine = Dictionary(found.map { ($0.location.line, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(byLine[3]?.id == "RP011")
        #expect(byLine[3]?.message == "cases[0].status: expected an integer from 100 to 599, found the quoted string \"503\"")
        #expect(byLine[3]?.suggestion == "write 503 without quotes")
        #expect(byLine[4]?.message == "cases[0].idempotent: expected true or false, found the string 'yes'")
        #expect(byLine[4]?.suggestion == "write true; since YAML 1.2 'yes' is a string")
        #expect(byLine[5]?.message == "cases[0].elapsed: expected a duration such as 250ms, 10s or 1m30s, found the integer 10")
        #expect(byLine[5]?.suggestion == "write 10s or 10ms")
        #expect(byLine[6]?.message == "cases[0].expect.action: expected success, retry or stop, found the string 'retyr'")
        #expect(byLine[6]?.suggestion == "did you mean 'retry'?")
        #expect(byLine[9]?.message == "sequences[0].expect.result: expected success or stop, found the string 'retry'")
        // The two expectations left with nothing to check say so too.
        #expect(found.count == 7, "\(found)")
    }
}
