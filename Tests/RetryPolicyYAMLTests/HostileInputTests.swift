import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Hostile files end quickly with a located error: no expansion, no deep
/// recursion, no unbounded memory, no crash.
@Suite struct HostileInputTests {
    static let cases: [LoaderErrorCase] = [
        LoaderErrorCase("hostile/alias-bomb.yaml", [
            "hostile/alias-bomb.yaml:3:5: error: expected a plain value, found the anchor '&a0'; anchors and aliases are not allowed [RP004] (share settings between files with 'extends')",
            "hostile/alias-bomb.yaml:4:5: error: expected a plain value, found the anchor '&a1'; anchors and aliases are not allowed [RP004] (share settings between files with 'extends')",
            "hostile/alias-bomb.yaml:4:10: error: expected a value, found the alias '*a0'; anchors and aliases are not allowed [RP004] (share settings between files with 'extends')",
            "hostile/alias-bomb.yaml:4:14: error: expected no anchors or aliases, found 88 more from here on (not listed) [RP004]",
        ]),
        LoaderErrorCase("hostile/deep-block-nesting.yaml", [
            "hostile/deep-block-nesting.yaml:67:129: error: expected nesting at most 64 levels deep, found deeper nesting [RP003]",
        ]),
        LoaderErrorCase("hostile/deep-nesting.yaml", [
            "hostile/deep-nesting.yaml:3:71: error: expected nesting at most 64 levels deep, found deeper nesting [RP003]",
        ]),
        LoaderErrorCase("hostile/huge-integers.yaml", [
            "hostile/huge-integers.yaml:3:11: error: attempts: expected an integer from 1 to 100, found the integer 99999999999999999999999999999999 (too large) [RP019]",
            "hostile/huge-integers.yaml:5:13: error: budget.capacity: expected an integer from 1 to 1000000, found the integer 0x7FFFFFFFFFFFFFFFFFFF (too large) [RP019]",
        ]),
        LoaderErrorCase("hostile/invalid-utf8.yaml", [
            "hostile/invalid-utf8.yaml:2:10: error: expected UTF-8 text, found the invalid byte 0xC3 [RP002]",
        ]),
        LoaderErrorCase("hostile/nul-byte.yaml", [
            "hostile/nul-byte.yaml:2:10: error: expected UTF-8 text, found a NUL byte (is this a binary or UTF-16 file?) [RP002]",
        ]),
        LoaderErrorCase("hostile/overflowing-durations.yaml", [
            "hostile/overflowing-durations.yaml:4:12: error: backoff.initial: expected a duration such as 250ms, 10s or 1m30s, found '99999999999999999999s': a duration too large to represent [RP014]",
            "hostile/overflowing-durations.yaml:5:8: error: backoff.max: expected a duration such as 250ms, 10s or 1m30s, found '2401h': a duration too large to represent [RP014]",
            "hostile/overflowing-durations.yaml:7:10: error: timeouts.total: expected a duration such as 250ms, 10s or 1m30s, found '9223372036854775807ms': a duration too large to represent [RP014]",
        ]),
        LoaderErrorCase("hostile/status-extremes.yaml", [
            "hostile/status-extremes.yaml:4:14: error: rules[0].status: expected a status code from 100 to 599, found the integer 0 [RP015]",
            "hostile/status-extremes.yaml:4:17: error: rules[0].status: expected a status code from 100 to 599, found the integer 99999 [RP015]",
            "hostile/status-extremes.yaml:4:24: error: rules[0].status: expected a status code from 100 to 599, found the integer -1 [RP015]",
            "hostile/status-extremes.yaml:4:28: error: rules[0].status: expected a status code from 100 to 599, found the integer 99999999999999999999999 (too large) [RP015]",
        ]),
        LoaderErrorCase("hostile/utf16.yaml", [
            "hostile/utf16.yaml:1:1: error: expected UTF-8 text, found a UTF-16 byte order mark [RP002] (save the file as UTF-8)",
        ]),    ]

    /// Generous: each of these takes milliseconds; the bound catches an
    /// expansion or a quadratic blow-up, not a slow machine.
    static let fast: Duration = .seconds(2)

    @Test(arguments: cases) func failsFastWithALocatedError(_ testCase: LoaderErrorCase) {
        var actual: [String] = []
        let elapsed = ContinuousClock().measure { actual = LoaderErrorCase.diagnostics(of: testCase.file) }
        #expect(actual == testCase.expected)
        #expect(elapsed < Self.fast)
    }

    @Test func everyHostileFixtureHasACase() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.fixture("hostile"))
            .filter { $0.hasSuffix(".yaml") }.map { "hostile/" + $0 }
        #expect(Set(files) == Set(Self.cases.map(\.file)))
    }

    /// A file over 1 MiB is refused before parsing; written at test time so
    /// the repository does not carry megabytes of filler.
    @Test func aFileOverTheSizeLimitIsRefusedUnread() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("retry-policy-big-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var text = "version: 1\nname: big\ndescription: \""
        text += String(repeating: "x", count: (1 << 20) + 10) + "\"\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var diagnostics: [String] = []
        let elapsed = ContinuousClock().measure {
            diagnostics = LoaderErrorCase.diagnostics(atPath: path)
        }
        #expect(diagnostics == ["\(path):1:1: error: expected a policy file of at most 1048576 bytes, found a larger file [RP003]"])
        #expect(elapsed < Self.fast)
    }

    /// The same limit applies to text handed over in memory.
    @Test func textOverTheSizeLimitIsRefused() {
        let text = "version: 1\nname: big\n#" + String(repeating: "x", count: 1 << 20)
        #expect(throws: PolicyLoadError.self) { try PolicyLoader().loadDocument(yaml: text, path: "big.yaml") }
        do { _ = try YAMLParser.parse(text, path: "big.yaml") } catch {
            #expect(error.diagnostics.map(\.description) == [
                "big.yaml:1:1: error: expected a policy file of at most 1048576 bytes, found \(text.utf8.count) bytes [RP003]"
            ])
        }
    }

    /// Many small nodes stop at the node limit instead of building a huge
    /// tree.
    @Test func tooManyNodesStopAtTheLimit() {
        let text = "version: 1\nname: wide\nparity: [" + Array(repeating: "a", count: 200).joined(separator: ", ") + "]\n"
        let limits = YAMLLimits(maxNodes: 100)
        do {
            _ = try PolicyLoader(limits: limits).loadDocument(yaml: text, path: "wide.yaml")
            Issue.record("loaded")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "wide.yaml:3:289: error: expected at most 100 YAML nodes, found more [RP003]"
            ])
        }
    }

    /// An escaped NUL inside a double-quoted string is refused too, not
    /// only a raw NUL byte.
    @Test func anEscapedNulIsRefused() {
        do {
            _ = try PolicyLoader().loadDocument(yaml: "version: 1\nname: \"a\\0b\"\n", path: "nul.yaml")
            Issue.record("loaded")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "nul.yaml:2:7: error: expected text, found a NUL character (\\0) in a string [RP002]"
            ])
        }
    }

    /// Files with thousands of problems, built in memory: each ends quickly
    /// (no quadratic work: these sizes took minutes when appending to the
    /// tree copied it) with 100 located problems and a count of the rest.
    @Test(arguments: [
        ("many-unknown-keys.yaml", "version: 1\nname: x\n" + (0..<10_000).map { "k\($0): 1\n" }.joined(), "many-unknown-keys.yaml:103:1: error: stopped after 100 problems; 9900 more not listed [RP010]"),
        ("many-duplicates.yaml", "version: 1\nname: x\n" + String(repeating: "k: 1\n", count: 10_000), "many-duplicates.yaml:104:1: error: stopped after 100 problems; 9899 more not listed [RP006]"),
        ("many-bad-rules.yaml", "version: 1\nname: x\nrules:\n" + String(repeating: "  - {status: 9999, error: nope, action: retyr, foo: 1}\n", count: 3_000), "many-bad-rules.yaml:29:14: error: stopped after 100 problems; 11900 more not listed [RP015]"),
    ])
    func floodsOfProblemsAreCountedNotListed(_ name: String, _ text: String, _ lastLine: String) {
        var diagnostics: [String] = []
        let elapsed = ContinuousClock().measure {
            do throws(PolicyLoadError) {
                _ = try PolicyLoader().loadDocument(yaml: text, path: name)
            } catch {
                diagnostics = error.diagnostics.map(\.description)
            }
        }
        #expect(diagnostics.count == 101)
        #expect(diagnostics.last == lastLine)
        #expect(elapsed < Self.fast)
    }

    /// A long flat list of aliases: refused, reported briefly, quickly.
    @Test func aLongListOfAliasesIsReportedBriefly() {
        let text = "version: 1\nname: x\na: &a 1\nb: [" + Array(repeating: "*a", count: 20_000).joined(separator: ", ") + "]\n"
        var diagnostics: [String] = []
        let elapsed = ContinuousClock().measure {
            do throws(PolicyLoadError) {
                _ = try PolicyLoader().loadDocument(yaml: text, path: "aliases.yaml")
            } catch {
                diagnostics = error.diagnostics.map(\.description)
            }
        }
        #expect(diagnostics.count == 4)
        #expect(diagnostics.last == "aliases.yaml:4:13: error: expected no anchors or aliases, found 19998 more from here on (not listed) [RP004]")
        #expect(elapsed < Self.fast)
    }
}
