import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// One malformed file under Fixtures/ and the exact diagnostics the loader
/// gives for it, paths relative to Fixtures/.
struct LoaderErrorCase: CustomTestStringConvertible, Sendable {
    let file: String
    let expected: [String]

    init(_ file: String, _ expected: [String]) {
        self.file = file
        self.expected = expected
    }

    var testDescription: String { file }

    /// The diagnostics of loading the file at `path`, as printed.
    static func diagnostics(atPath path: String, loader: PolicyLoader = PolicyLoader()) -> [String] {
        do {
            _ = try loader.loadDocument(atPath: path)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// The diagnostics of loading the fixture, paths made relative.
    static func diagnostics(of file: String, loader: PolicyLoader = PolicyLoader()) -> [String] {
        do {
            _ = try loader.loadDocument(atPath: RepositoryFiles.fixture(file))
            return []
        } catch {
            return error.diagnostics.map { $0.description.replacingOccurrences(of: RepositoryFiles.fixtures + "/", with: "") }
        }
    }
}

/// Every loader error, each from a real malformed file, with its exact
/// located message: the messages are the product here, so they are pinned
/// word for word.
@Suite struct LoaderErrorTests {
    static let cases: [LoaderErrorCase] = [
        LoaderErrorCase("invalid/anchors-aliases.yaml", [
            "invalid/anchors-aliases.yaml:3:10: error: expected a plain value, found the anchor '&shared'; anchors and aliases are not allowed [RP004] (share settings between files with 'extends')",
            "invalid/anchors-aliases.yaml:5:14: error: expected a value, found the alias '*shared'; anchors and aliases are not allowed [RP004] (share settings between files with 'extends')",
        ]),
        LoaderErrorCase("invalid/bad-durations.yaml", [
            "invalid/bad-durations.yaml:4:12: error: backoff.initial: expected a duration such as 250ms, 10s or 1m30s, found the integer 10 [RP014] (write 10s or 10ms)",
            "invalid/bad-durations.yaml:5:8: error: backoff.max: expected a duration such as 250ms, 10s or 1m30s, found '-1s': a negative duration [RP014]",
            "invalid/bad-durations.yaml:7:16: error: timeouts.per_attempt: expected a duration such as 250ms, 10s or 1m30s, found '10 sec': unknown unit ' sec' (use h, m, s or ms) [RP014]",
            "invalid/bad-durations.yaml:8:10: error: timeouts.total: expected a duration such as 250ms, 10s or 1m30s, found '1000000h': a duration too large to represent [RP014]",
        ]),
        LoaderErrorCase("invalid/custom-tags.yaml", [
            "invalid/custom-tags.yaml:2:7: error: expected no tag or a core schema tag (!!str, !!int, !!bool, !!null, !!float, !!map, !!seq), found '!!python/name:os.system' [RP005]",
            "invalid/custom-tags.yaml:3:11: error: expected no tag or a core schema tag (!!str, !!int, !!bool, !!null, !!float, !!map, !!seq), found '!custom' [RP005]",
            "invalid/custom-tags.yaml:4:10: error: expected a tag that fits a mapping, found !!seq [RP005]",
        ]),
        LoaderErrorCase("invalid/key-conflicts.yaml", [
            "invalid/key-conflicts.yaml:5:3: error: backoff.step: applies only to shape linear, found shape exponential [RP026] (add 'shape: linear', or use 'multiplier' for an exponential backoff)",
            "invalid/key-conflicts.yaml:10:3: error: budget.retry_cost: does not apply to preset grpc (every failure costs one token, every success returns token_ratio) [RP026] (set max_tokens and token_ratio, or choose preset aws-standard to use retry_cost)",
        ]),
        LoaderErrorCase("invalid/duplicate-key.yaml", [
            "invalid/duplicate-key.yaml:6:3: error: expected each key once in a mapping, found 'initial' again (first at line 5, column 3) [RP006] (remove one of the two entries)",
            "invalid/duplicate-key.yaml:7:1: error: expected each key once in a mapping, found 'attempts' again (first at line 3, column 1) [RP006] (remove one of the two entries)",
        ]),
        LoaderErrorCase("invalid/empty.yaml", [
            "invalid/empty.yaml:1:1: error: expected a policy document with 'version' and 'name', found an empty file [RP007]",
        ]),
        LoaderErrorCase("invalid/extends-cycle-a.yaml", [
            "invalid/extends-cycle-b.yaml:3:10: error: extends: expected a chain of policies without cycles, found invalid/extends-cycle-a.yaml -> invalid/extends-cycle-b.yaml -> invalid/extends-cycle-a.yaml [RP022] (remove 'extends' from one of these files)",
        ]),
        LoaderErrorCase("invalid/extends-cycle-b.yaml", [
            "invalid/extends-cycle-a.yaml:3:10: error: extends: expected a chain of policies without cycles, found invalid/extends-cycle-b.yaml -> invalid/extends-cycle-a.yaml -> invalid/extends-cycle-b.yaml [RP022] (remove 'extends' from one of these files)",
        ]),
        LoaderErrorCase("invalid/extends-missing.yaml", [
            "invalid/extends-missing.yaml:3:10: error: extends: expected a readable policy file at 'invalid/no-such-base.yaml', found no such file [RP021]",
        ]),
        LoaderErrorCase("invalid/incomplete-rules.yaml", [
            "invalid/incomplete-rules.yaml:4:5: error: rules[0]: expected 'status', 'transport', 'condition' or 'grpc', found none [RP023] (a rule without conditions matches nothing; use 'default' for unmatched inputs)",
            "invalid/incomplete-rules.yaml:6:5: error: missing required key 'error' in 'rules[1]' (a retry rule reports an error kind) [RP012]",
        ]),
        LoaderErrorCase("invalid/malformed-ranges.yaml", [
            "invalid/malformed-ranges.yaml:4:13: error: rules[0].status: expected a range whose first code is not above its last, found the quoted string \"504-500\" [RP015] (write \"500-504\")",
            "invalid/malformed-ranges.yaml:7:14: error: rules[1].status: expected a status code from 100 to 599 (429), a class (\"5xx\") or a range (\"500-504\"), found the string '6xx' [RP015]",
            "invalid/malformed-ranges.yaml:7:19: error: rules[1].status: expected a status code from 100 to 599 (429), a class (\"5xx\") or a range (\"500-504\"), found the string '5XX' [RP015]",
            "invalid/malformed-ranges.yaml:7:24: error: rules[1].status: expected a range within 100-599, found the string '500-700' [RP015]",
            "invalid/malformed-ranges.yaml:7:33: error: rules[1].status: expected a status code from 100 to 599 (429), a class (\"5xx\") or a range (\"500-504\"), found the string '500-' [RP015]",
            "invalid/malformed-ranges.yaml:10:13: error: rules[2].status: expected a status pattern or a list of at least one, found an empty list [RP019]",
        ]),
        LoaderErrorCase("invalid/many-problems.yaml", [
            "invalid/many-problems.yaml:4:1: error: unknown key 'atempts'; expected one of: version, name, description, extends, platform, attempts, idempotency, backoff, retry_after, timeouts, endpoints, budget, breaker, hedging, rate_limit, conditions, rules, default, errors, parity [RP010] (did you mean 'attempts'?)",
            "invalid/many-problems.yaml:6:12: error: backoff.initial: expected a duration such as 250ms, 10s or 1m30s, found the integer 1 [RP014] (write 1s or 1ms)",
            "invalid/many-problems.yaml:9:13: error: rules[0].status: expected a status code from 100 to 599, found the integer 42 [RP015]",
            "invalid/many-problems.yaml:12:26: error: rules[1].transport: expected a transport class (timeout, connection_lost, offline, dns, tls, connection_refused, cancelled, invalid_url, decoding or unknown), found the string 'dnss' [RP017] (did you mean 'dns'?)",
            "invalid/many-problems.yaml:13:12: error: rules[1].error: expected a standard error kind or one declared under 'errors', found 'timout' [RP016] (did you mean 'timeout'?)",
        ]),
        LoaderErrorCase("invalid/missing-keys.yaml", [
            "invalid/missing-keys.yaml:1:1: error: missing required key 'version' at the top level [RP012]",
            "invalid/missing-keys.yaml:3:5: error: missing required key 'action' in 'rules[0]' [RP012]",
            "invalid/missing-keys.yaml:6:3: error: missing required key 'error' in 'default' [RP012]",
        ]),
        LoaderErrorCase("invalid/out-of-range-numbers.yaml", [
            "invalid/out-of-range-numbers.yaml:3:11: error: attempts: expected an integer from 1 to 100, found the integer 0 [RP019]",
            "invalid/out-of-range-numbers.yaml:5:15: error: backoff.multiplier: expected a number from 0 to 100, found the integer -2 [RP019]",
            "invalid/out-of-range-numbers.yaml:7:13: error: budget.capacity: expected an integer from 1 to 1000000, found the integer 0 [RP019]",
            "invalid/out-of-range-numbers.yaml:8:15: error: budget.retry_cost: expected an integer from 0 to 1000000, found the integer 99999999999999999999999 (too large) [RP019]",
        ]),
        LoaderErrorCase("invalid/stack-with-rules.yaml", [
            "invalid/stack-with-rules.yaml:5:1: error: expected only stack keys (version, name, description, stack, max_amplification) in a file with 'stack', found the policy key 'rules' [RP024] (move the policy into its own file and list it as a layer)",
        ]),
        LoaderErrorCase("invalid/status-out-of-range.yaml", [
            "invalid/status-out-of-range.yaml:4:13: error: rules[0].status: expected a status code from 100 to 599, found the integer 0 [RP015]",
            "invalid/status-out-of-range.yaml:7:13: error: rules[1].status: expected a status code from 100 to 599, found the integer 99999 [RP015]",
            "invalid/status-out-of-range.yaml:10:14: error: rules[2].status: expected a status code from 100 to 599, found the integer 600 [RP015]",
            "invalid/status-out-of-range.yaml:10:19: error: rules[2].status: expected a status code from 100 to 599 (429), a class (\"5xx\") or a range (\"500-504\"), found the quoted string \"429\" [RP015] (write 429 without quotes)",
        ]),
        LoaderErrorCase("invalid/two-documents.yaml", [
            "invalid/two-documents.yaml:3:1: error: expected one YAML document per file, found a second document [RP007]",
        ]),
        LoaderErrorCase("invalid/unknown-enum-value.yaml", [
            "invalid/unknown-enum-value.yaml:4:11: error: backoff.jitter: expected none, full, equal or decorrelated, found the string 'fulll' [RP013] (did you mean 'full'?)",
            "invalid/unknown-enum-value.yaml:6:13: error: retry_after.cooldown: expected off, wait or reject, found the boolean false [RP011]",
            "invalid/unknown-enum-value.yaml:8:35: error: retry_after.headers[0].format: expected http, milliseconds, seconds or unix_seconds, found the string 'minutes' [RP013]",
            "invalid/unknown-enum-value.yaml:12:13: error: rules[0].action: expected retry, stop or success, found the string 'retyr' [RP013] (did you mean 'retry'?)",
        ]),
        LoaderErrorCase("invalid/unknown-error-kind.yaml", [
            "invalid/unknown-error-kind.yaml:5:12: error: rules[0].error: expected a standard error kind or one declared under 'errors', found 'status_492' [RP016] (did you mean 'status_429'?)",
            "invalid/unknown-error-kind.yaml:8:10: error: default.error: expected a standard error kind or one declared under 'errors', found 'quota_exceeded' [RP016] (declare it under 'errors' or use one of no_fill, network_error, status_429, status_5xx, timeout, internal_error, invalid_placement, unauthorized, not_found, cancelled, decoding_failed)",
        ]),
        LoaderErrorCase("invalid/unknown-key.yaml", [
            "invalid/unknown-key.yaml:3:1: error: unknown key 'bakoff'; expected one of: version, name, description, extends, platform, attempts, idempotency, backoff, retry_after, timeouts, endpoints, budget, breaker, hedging, rate_limit, conditions, rules, default, errors, parity [RP010] (did you mean 'backoff'?)",
            "invalid/unknown-key.yaml:6:3: error: unknown key 'capp' in 'retry_after'; expected one of: honor, cap, above_cap, combine, cooldown, headers [RP010] (did you mean 'cap'?)",
        ]),
        LoaderErrorCase("invalid/unknown-method.yaml", [
            "invalid/unknown-method.yaml:4:13: error: idempotency.methods: expected an HTTP method (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE or CONNECT), found the string 'get' [RP018] (did you mean 'GET'?)",
            "invalid/unknown-method.yaml:4:18: error: idempotency.methods: expected an HTTP method (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE or CONNECT), found the string 'FETCH' [RP018]",
            "invalid/unknown-method.yaml:7:14: error: rules[0].methods: expected a list of HTTP methods, found the string 'GET' [RP011]",
        ]),
        LoaderErrorCase("invalid/unknown-transport.yaml", [
            "invalid/unknown-transport.yaml:4:17: error: rules[0].transport: expected a transport class (timeout, connection_lost, offline, dns, tls, connection_refused, cancelled, invalid_url, decoding or unknown), found the string 'timeuot' [RP017] (did you mean 'timeout'?)",
            "invalid/unknown-transport.yaml:4:43: error: rules[0].transport: expected a transport class (timeout, connection_lost, offline, dns, tls, connection_refused, cancelled, invalid_url, decoding or unknown), found the string 'wifi' [RP017]",
        ]),
        LoaderErrorCase("invalid/unsupported-version.yaml", [
            "invalid/unsupported-version.yaml:1:10: error: version: expected the format version 1 (the only one), found the integer 2 [RP020]",
        ]),
        LoaderErrorCase("invalid/wrong-type.yaml", [
            "invalid/wrong-type.yaml:3:11: error: attempts: expected an integer from 1 to 100, found the quoted string \"4\" [RP011] (write 4 without quotes)",
            "invalid/wrong-type.yaml:5:10: error: retry_after.honor: expected true or false, found the string 'yes' [RP011] (write true; since YAML 1.2 'yes' is a string)",
            "invalid/wrong-type.yaml:6:10: error: backoff: expected a mapping, found a list [RP011]",
            "invalid/wrong-type.yaml:8:3: error: rules: expected a list of rules, found a mapping [RP011]",
        ]),
        LoaderErrorCase("invalid/yaml-syntax.yaml", [
            "invalid/yaml-syntax.yaml:4:22: error: expected ']' to close the list opened at line 4, column 13, found the end of the line [RP001] (add ']' at the end of line 4 (the '[' on line 4 is still open))",
        ]),        LoaderErrorCase("invalid/empty-lists.yaml", [
            "invalid/empty-lists.yaml:3:10: error: extends: expected a policy file path, found the quoted string \"\" [RP013]",
            "invalid/empty-lists.yaml:6:14: error: rules[0].methods: expected a list of HTTP methods with at least one item, found an empty list [RP019]",
            "invalid/empty-lists.yaml:9:16: error: rules[1].transport: expected a transport class or a list of at least one, found an empty list [RP019]",
        ]),
        LoaderErrorCase("invalid/yaml11-booleans.yaml", [
            "invalid/yaml11-booleans.yaml:4:10: error: retry_after.honor: expected true or false, found the string 'on' [RP011] (write true; since YAML 1.2 'on' is a string)",
            "invalid/yaml11-booleans.yaml:5:13: error: retry_after.cooldown: expected off, wait or reject, found the string 'no' [RP013]",
            "invalid/yaml11-booleans.yaml:10:26: error: rules[0].refresh_credentials: expected true or false, found the string 'Yes' [RP011] (write true; since YAML 1.2 'Yes' is a string)",
        ]),
        LoaderErrorCase("invalid/undeclared-condition.yaml", [
            "invalid/undeclared-condition.yaml:4:41: error: backoff.min: expected at most backoff.max (1s), found 2s [RP019] (the floor is applied after the cap; lower 'min' or raise 'max')",
            "invalid/undeclared-condition.yaml:5:30: error: conditions: 'malformed_body' is declared twice [RP013] (remove the second 'malformed_body')",
            "invalid/undeclared-condition.yaml:7:17: error: rules[0].condition: expected a condition declared under 'conditions', found 'malformed_bdy' [RP027] (did you mean 'malformed_body'?)",
            "invalid/undeclared-condition.yaml:8:18: error: rules[1].condition: expected a condition declared under 'conditions', found 'maintenance_page' [RP027] (declare it: conditions: [maintenance_page])",
        ]),
        LoaderErrorCase("invalid/grpc-statuses.yaml", [
            "invalid/grpc-statuses.yaml:5:13: error: rules[0].grpc: expected a gRPC status name (UNAVAILABLE, RESOURCE_EXHAUSTED, ...; see grpc/grpc doc/statuscodes.md), found the string 'UNAVAILBLE' [RP028] (did you mean 'UNAVAILABLE'?)",
            "invalid/grpc-statuses.yaml:6:12: error: rules[1].grpc: expected a gRPC status name (UNAVAILABLE, RESOURCE_EXHAUSTED, ...; see grpc/grpc doc/statuscodes.md), found the string 'unavailable' [RP028] (write UNAVAILABLE)",
            "invalid/grpc-statuses.yaml:7:12: error: rules[2].grpc: expected a gRPC status name (UNAVAILABLE, RESOURCE_EXHAUSTED, ...; see grpc/grpc doc/statuscodes.md), found the integer 14 [RP028] (write UNAVAILABLE)",
            "invalid/grpc-statuses.yaml:8:12: error: rules[3].grpc: expected a gRPC status name or a list of at least one, found an empty list [RP019]",
            "invalid/grpc-statuses.yaml:9:12: error: rules[4].grpc: expected a gRPC status name or a list of them, found a mapping [RP011]",
            "invalid/grpc-statuses.yaml:10:12: error: rules[5].grpc: expected a gRPC status name (UNAVAILABLE, RESOURCE_EXHAUSTED, ...; see grpc/grpc doc/statuscodes.md), found the string 'NOT_A_STATUS' [RP028] (one of OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS or UNAUTHENTICATED)",
        ]),
        LoaderErrorCase("invalid/float-for-integer.yaml", [
            "invalid/float-for-integer.yaml:1:10: error: version: expected the format version 1, found the number 1.0 [RP011]",
            "invalid/float-for-integer.yaml:3:11: error: attempts: expected an integer from 1 to 100, found the number 4.0 [RP011]",
        ]),
    ]

    @Test(arguments: cases) func reportsExactlyTheseLocatedDiagnostics(_ testCase: LoaderErrorCase) {
        let actual = LoaderErrorCase.diagnostics(of: testCase.file)
        #expect(actual == testCase.expected)
    }

    @Test func everyMalformedFixtureHasACase() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.fixture("invalid"))
            .filter { $0.hasSuffix(".yaml") }.map { "invalid/" + $0 }
        #expect(Set(files) == Set(Self.cases.map(\.file)))
    }

    @Test func aStackFileIsNotAPolicy() {
        let path = RepositoryFiles.fixture("valid/stack.yaml")
        #expect(throws: PolicyLoadError.self) { try PolicyLoader().loadPolicy(atPath: path) }
        do {
            _ = try PolicyLoader().loadPolicy(atPath: path)
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "\(path):1:1: error: expected a policy file, found a stack file (it has 'stack') [RP024] (load it with loadDocument, or lint it as a stack)"
            ])
        }
    }

    @Test func aMissingFileAndADirectoryAreUnreadable() {
        let missing = RepositoryFiles.fixture("valid/absent.yaml")
        let directory = RepositoryFiles.fixture("valid")
        for (path, found) in [(missing, "no such file"), (directory, "a directory")] {
            do {
                _ = try PolicyLoader().loadDocument(atPath: path)
                Issue.record("\(path) loaded")
            } catch {
                #expect(error.diagnostics.map(\.description) == [
                    "\(path):1:1: error: expected a readable policy file at '\(path)', found \(found) [RP008]"
                ])
            }
        }
    }

    /// All loader rule ids are exercised by some test in this suite or the
    /// hostile-input suite.
    @Test func everyLoaderRuleHasAFixture() {
        var ids = Set(Self.cases.flatMap { $0.expected }.compactMap { line in
            line.range(of: #"\[RP0\d\d\]"#, options: .regularExpression).map { String(line[$0].dropFirst().dropLast()) }
        })
        ids.formUnion(["RP008", "RP024"])  // the two tests above
        ids.formUnion(["RP009"])  // PolicyRootTests
        ids.formUnion(["RP025"])  // lint's references: LintCommandTests, UntrustedInputTests
        ids.formUnion(HostileInputTests.cases.flatMap { $0.expected }.compactMap { line in
            line.range(of: #"\[RP0\d\d\]"#, options: .regularExpression).map { String(line[$0].dropFirst().dropLast()) }
        })
        #expect(ids == Set(LoaderRule.allCases.map(\.id)))
    }
}
