import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import Testing

/// Each rule points at the key that causes its finding, so that an inline
/// `# retry-policy: disable=RPxxx` on that line silences it. Every case is
/// a real file: the finding is located where the `<` marker is, and the
/// same text with a suppression comment on that line is clean of it.
@Suite("Findings point at the key that causes them")
struct FindingLocationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var id: String
        /// The policy; the line holding `#<` is where the finding must be.
        var text: String
        /// Other files beside it (parity partners, stack layers).
        var others: [String: String] = [:]

        var testDescription: String { id }
    }

    static let base = """
        version: 1
        name: base
        attempts: 3
        backoff: {initial: 100ms, max: 2s, multiplier: 2, jitter: full}
        retry_after: {honor: true, cap: 30s}
        rules:
          - {status: 503, error: status_5xx, action: retry}
        default: {error: internal_error, action: stop}

        """

    /// A gRPC service config that retries every method (gRFC A6).
    static let grpcChannel = """
        {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s",
          "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}

        """

    static let cases: [Case] = [
        Case(id: "RP101", text: """
            version: 1
            name: p
            attempts: 2
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 5xx, error: status_5xx, action: stop}
              - {status: 503, error: status_5xx, action: stop}  #<
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP102", text: """
            version: 1
            name: p
            attempts: 1
            rules:  #<
              - {status: 503, error: status_5xx, action: stop}

            """),
        Case(id: "RP103", text: """
            version: 1
            name: p
            attempts: 4
            backoff: {initial: 1s, max: 2s, jitter: full}
            retry_after: {honor: true, cap: 30s}
            timeouts:
              per_attempt: 10s
              total: 20s  #<
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP104", text: """
            version: 1
            name: p
            attempts: 3
            backoff:
              initial: 2s
              max: 1s  #<
              jitter: full
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP105", text: """
            version: 1
            name: p
            attempts: 3
            backoff:
              initial: 1s
              max: 2s
              multiplier: 0.5  #<
              jitter: full
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP106", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after:
              honor: true  #<
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP107", text: """
            version: 1
            name: p
            attempts: 3
            backoff:
              initial: 100ms
              max: 1s
              jitter: none  #<
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP108", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 404, error: not_found, action: retry}  #<
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP109", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 503, methods: [POST], error: status_5xx, action: retry}  #<
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP112", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after: {honor: false}
            rules:
              - {status: 429, error: status_429, action: retry}  #<
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP114", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after: {honor: true, cap: 30s}
            budget: {capacity: 500, retry_cost: 5}  #<
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP110", text: """
            version: 1
            name: p
            attempts: 1  #<
            backoff: {initial: 100ms, max: 1s, jitter: full}
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP111", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 1s, jitter: full}
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 5xx, error: status_5xx, action: retry}  #<
            default: {error: internal_error, action: stop}

            """),
        Case(id: "RP113", text: """
            version: 1
            name: s
            stack:  #<
              - {name: one, policy: a.yaml}
              - {name: two, policy: a.yaml}
              - {name: three, policy: a.yaml}
            max_amplification: 2

            """, others: ["a.yaml": base]),
        Case(id: "RP128", text: """
            version: 1
            name: s
            stack:
              - {name: app, policy: a.yaml}
              - {name: channel, policy: channel.yaml}  #<

            """, others: ["a.yaml": base, "channel.yaml": grpcChannel]),
        Case(id: "RP115", text: """
            version: 1
            name: p
            attempts: 3
            backoff: {initial: 100ms, max: 2s, multiplier: 2, jitter: full}
            retry_after: {honor: true, cap: 30s}
            rules:
              - {status: 503, error: status_5xx, action: stop}
            default: {error: internal_error, action: stop}
            parity: [a.yaml]  #<

            """, others: ["a.yaml": base]),
    ]

    /// Lints `text` written as `p.yaml` in a fresh directory.
    static func lint(_ text: String, others: [String: String]) throws -> [LintFinding] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("locations-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try text.write(toFile: directory + "/p.yaml", atomically: true, encoding: .utf8)
        for (name, other) in others { try other.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        let run = LintRun(root: try PolicyRoot(directory: directory))
        return run.lint(file: directory + "/p.yaml")
    }

    @Test("the finding is on the line of its key, and a suppression there silences it", arguments: cases)
    func location(_ test: Case) throws {
        let lines = test.text.split(separator: "\n", omittingEmptySubsequences: false)
        let markedLine = try #require(lines.firstIndex { $0.contains("#<") }) + 1
        let plain = test.text.replacingOccurrences(of: "  #<", with: "")
        let found = try Self.lint(plain, others: test.others).filter { $0.id == test.id }
        try #require(found.count >= 1, "no \(test.id) finding")
        #expect(found[0].location.line == markedLine, "\(found[0])")
        // The key's column: past the indentation and a list item's "- ".
        let line = lines[markedLine - 1]
        var indent = line.prefix { $0 == " " }.count
        if line.dropFirst(indent).hasPrefix("- ") { indent += 2 }
        #expect(found[0].location.column == indent + 1, "\(found[0])")

        let suppressed = test.text.replacingOccurrences(of: "#<", with: "# retry-policy: disable=\(test.id)")
        let after = try Self.lint(suppressed, others: test.others)
        #expect(!after.contains { $0.id == test.id }, "\(after)")
        #expect(!after.contains { $0.id == "RP116" }, "the suppression is used: \(after)")
    }

    @Test("the suppression example of docs/cli.md is clean, and each of its comments is needed")
    func documentedSuppressions() throws {
        let example = try String(contentsOfFile: Self.repository + "/docs/examples/suppressions.yaml", encoding: .utf8)
        let documented = try String(contentsOfFile: Self.repository + "/docs/cli.md", encoding: .utf8)
        #expect(documented.contains("```yaml\n" + example + "```"), "docs/cli.md shows the example file as it is")
        #expect(try Self.lint(example, others: [:]).isEmpty)
        let bare = example.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line -> String? in
            guard let range = line.range(of: "# retry-policy:") else { return String(line) }
            let code = line[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            return code.isEmpty ? nil : String(line[..<range.lowerBound])
        }.joined(separator: "\n")
        #expect(try Self.lint(bare, others: [:]).map(\.id).sorted() == ["RP101", "RP107", "RP111", "RP114"])
    }

    @Test("a loader check named in a suppression is an error and silences nothing")
    func loaderChecksCannotBeSuppressed() throws {
        let findings = try Self.lint("# retry-policy: disable-file=RP010\nversion: 1\nname: p\nattemps: 3\n", others: [:])
        #expect(findings.map(\.id).sorted() == ["RP010", "RP012", "RP013"] || findings.map(\.id).sorted() == ["RP010", "RP013"], "\(findings)")
        #expect(findings.contains { $0.id == "RP013" && $0.location.line == 1 && $0.severity == .error })
        #expect(findings.contains { $0.id == "RP010" && $0.location.line == 4 })
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
