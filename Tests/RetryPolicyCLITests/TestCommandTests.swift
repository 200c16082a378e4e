import Foundation
import Testing

@Suite("retry-policy test", .serialized)
struct TestCommandTests {
    static let passing = """
        # Cases for clean.yaml.
        cases:
          - name: 503 is retried with full jitter
            status: 503
            expect:
              action: retry
              error: status_5xx
              delay: {min: 0s, max: 1s}
              rule: 23
          - name: the third attempt is the last
            status: 503
            attempt: 3
            expect: {action: stop, reason: attempts_exhausted}
          - name: Retry-After is honoured exactly
            status: 429
            retry_after: "2"
            expect: {action: retry, delay: 2s}
          - name: a payment is not retried
            status: 502
            method: POST
            expect: {action: stop, reason: not_idempotent, error: SDKError.status_5xx}
          - name: DNS falls to the default
            transport: dns
            expect: {action: stop, error: network_error, reason: not_retryable}
        sequences:
          - name: two failures then success
            responses: [503, "429; Retry-After: 2", 200]
            expect: {result: success, attempts: 3, max_elapsed: 3s}
          - name: an outage exhausts the attempts
            responses: "500"
            expect: {result: stop, error: status_5xx, reason: attempts_exhausted, attempts: 3}

        """

    @Test("the sample test file in docs/cli.md passes against the shipped tmdb.yaml")
    func documentedSamplePasses() throws {
        let cli = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let section = try #require(cli.range(of: "\n## test\n"))
        let open = try #require(cli.range(of: "```yaml\n", range: section.upperBound..<cli.endIndex))
        let close = try #require(cli.range(of: "```\n", range: open.upperBound..<cli.endIndex))
        let sample = String(cli[open.upperBound..<close.lowerBound])
        #expect(sample.contains("policy: tmdb.yaml"))
        // A retry never stops for a reason: no case may pair the two.
        for block in sample.components(separatedBy: "  - name: ") where block.contains("action: retry") {
            #expect(!block.contains("reason:") || block.contains("# reason"), "\(block)")
        }
        let tmdb = try String(contentsOf: CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml"), encoding: .utf8)
        let workspace = try Workspace(["policies/tmdb.yaml": tmdb, "policies/sample.tests.yaml": sample])
        let result = try workspace.run(["test", "policies/sample.tests.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("PASS policies/sample.tests.yaml"), "\(result)")
    }

    @Test("passing cases exit 0 with a summary")
    func passes() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean, "clean.tests.yaml": Self.passing])
        let result = try workspace.run(["test", "clean.tests.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "PASS clean.tests.yaml: 7 cases passed\n1 test file, 7 cases: 7 passed, 0 failed\n")
    }

    @Test("a failing case is reported at its position with expected and actual, and exits 1")
    func fails() throws {
        let failing = """
            cases:
              - name: 503 stops
                status: 503
                expect: {action: stop, error: status_429}
            sequences:
              - name: succeeds at once
                responses: [503, 200]
                expect: {attempts: 1}

            """
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean, "clean.tests.yaml": failing])
        let result = try workspace.run(["test", "."])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("FAIL clean.tests.yaml: 2 of 2 cases failed\n"), "\(result)")
        #expect(result.stdout.contains("  clean.tests.yaml:2:5: case '503 stops' failed\n      action: expected stop, got retry\n      error: expected status_429, got status_5xx\n      actual: retry after 0s-1s [status_5xx]\n"), "\(result)")
        #expect(result.stdout.contains("  clean.tests.yaml:6:5: case 'succeeds at once' failed\n      attempts: expected 1, got 2\n"), "\(result)")
        #expect(result.stdout.hasSuffix("1 test file, 2 cases: 0 passed, 2 failed\n"))
    }

    @Test("giving the policy file runs the tests beside it (as pre-commit does)")
    func policyPath() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean, "clean.tests.yaml": Self.passing])
        let result = try workspace.run(["test", "clean.yaml"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("PASS clean.tests.yaml: 7 cases passed"))
    }

    @Test("an invalid test file is reported with positions (a misspelt key cannot make a case pass)")
    func invalid() throws {
        let broken = """
            cases:
              - name: typo
                status: 503
                expcet: {action: stop}

            """
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean, "clean.tests.yaml": broken])
        let result = try workspace.run(["test", "clean.tests.yaml"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("clean.tests.yaml:4:5: error: unknown key 'expcet' in 'cases[0]'; expected one of: name, status"), "\(result)")
        #expect(result.stdout.contains("did you mean 'expect'?"))
        #expect(result.stdout.contains("has no `expect`"))
    }

    @Test("json output")
    func json() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean, "clean.tests.yaml": Self.passing])
        let result = try workspace.run(["test", "--format", "json", "clean.tests.yaml"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["passed"] as? Int == 7)
        #expect(document["failed"] as? Int == 0)
    }

    @Test("junit output: a test case per case, failures with expected and actual")
    func junit() throws {
        let failing = Self.passing.replacingOccurrences(of: "expect: {action: stop, reason: attempts_exhausted}", with: "expect: {action: retry}")
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean, "clean.tests.yaml": failing])
        let result = try workspace.run(["test", "--format", "junit", "clean.tests.yaml"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("<testsuites name=\"retry-policy test\" tests=\"7\" failures=\"1\" errors=\"0\">"), "\(result)")
        #expect(result.stdout.contains("<testcase classname=\"clean.tests.yaml\" name=\"503 is retried with full jitter\" file=\"clean.tests.yaml\" line=\"3\"/>"), "\(result)")
        #expect(result.stdout.contains(">action: expected retry, got stop</failure>"), "\(result)")
        let check = try python("import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.argv[1]); print('well-formed')", arguments: [result.stdout])
        #expect(check.output == "well-formed\n")
    }

    @Test("the shipped policies pass their own tests",
          .enabled(if: FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("policies").path), "no policies/ directory"))
    func shippedPolicies() throws {
        let policies = CLI.packageRoot.appendingPathComponent("policies")
        let tests = (try? FileManager.default.contentsOfDirectory(atPath: policies.path))?.filter { $0.hasSuffix(".tests.yaml") } ?? []
        try #require(!tests.isEmpty, "policies/*.tests.yaml must exist")
        let result = try CLI.run(["test", "policies"], in: CLI.packageRoot)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("FAIL"))
    }
}
