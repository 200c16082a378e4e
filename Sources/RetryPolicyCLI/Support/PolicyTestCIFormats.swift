import RetryPolicyCore
import RetryPolicyLint
import RetryPolicySimulation

/// `retry-policy test --format github|sarif`: failing cases and invalid
/// tests files in the forms CI reads, written by lint's formatters so
/// that both commands annotate and escape one way.
///
/// A failing case is an error at the case (`- name:` in the tests file),
/// its message the mismatches and the actual decision; an invalid tests
/// file is an error at its first problem.
enum PolicyTestCIFormats {
    /// The descriptors SARIF publishes for the two kinds of result.
    static let failedCase = LintRule(
        id: "policy-test-failed", name: "policy-test-failed", defaultSeverity: .error,
        summary: "A policy test case got a decision other than the one it expects.",
        explanation: "The case's input was decided by the policy under test, and the decision differs from the "
            + "case's expectations (action, error, reason, delay bounds, deciding rule, or a sequence's end).")
    static let invalidFile = LintRule(
        id: "policy-test-invalid", name: "policy-test-invalid", defaultSeverity: .error,
        summary: "A tests file cannot be run.",
        explanation: "The tests file cannot be read or parsed, or the policy it tests cannot be loaded.")

    /// One result per failing case and per invalid file.
    static func results(_ report: PolicyTestReport) -> [SARIFFormatter.Result] {
        var results: [SARIFFormatter.Result] = []
        for result in report.results {
            for failure in result.failures {
                let mismatches = failure.mismatches.map { "\($0.field): expected \($0.expected), got \($0.actual)" }
                results.append(SARIFFormatter.Result(
                    ruleID: failedCase.id, level: .error,
                    message: "case '\(failure.name)' failed: \(mismatches.joined(separator: "; ")) (actual: \(failure.actual))",
                    location: failure.location))
            }
        }
        for entry in report.invalid {
            results.append(SARIFFormatter.Result(
                ruleID: invalidFile.id, level: .error,
                message: "invalid tests file: " + entry.problems.joined(separator: "; "),
                location: entry.location ?? SourceLocation(file: entry.file, line: 1, column: 1)))
        }
        return results
    }

    static func github(_ report: PolicyTestReport, quiet: Bool) -> String {
        var output = results(report).map {
            GitHubFormatter.annotation($0.level, at: $0.location, title: $0.ruleID, message: $0.message)
        }.joined()
        if !quiet { output += report.summary + "\n" }
        return output
    }

    static func sarif(_ report: PolicyTestReport) -> String {
        let results = results(report)
        let rules = [failedCase, invalidFile].filter { rule in results.contains { $0.ruleID == rule.id } }
        return SARIFFormatter.render(
            rules: rules, results: results, helpURI: { _ in SARIFFormatter.documentationBaseURI + "cli.md#test" },
            rooted: true)
    }
}
