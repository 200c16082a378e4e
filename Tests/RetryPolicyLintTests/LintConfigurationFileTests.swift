import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import Testing

@Suite("Settings files are read strictly")
struct LintConfigurationFileTests {
    @Test("a settings file is read by the same reader")
    func settingsWording() {
        do {
            _ = try LintConfiguration(yaml: "rules:\n  RP107: warnig\nrule: {}\n", path: ".retry-policy.yaml")
            Issue.record("settings with problems were accepted")
        } catch {
            let found = error.diagnostics.sorted { $0.location < $1.location }
            #expect(found.map(\.location.line) == [2, 3], "\(found)")
            #expect(found.first?.message == "rules.RP107: expected error, warning, note or off, found the string 'warnig'")
            #expect(found.first?.suggestion == "did you mean 'warning'?")
            #expect(found.last?.message == "unknown key 'rule'; expected one of: rules, include, exclude")
            #expect(found.last?.suggestion == "did you mean 'rules'?")
        }
    }
}
