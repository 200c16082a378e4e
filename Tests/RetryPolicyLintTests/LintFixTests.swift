import RetryPolicyCore
import RetryPolicyYAML
import Testing

@testable import RetryPolicyLint

/// Every mechanical fix, applied and linted again, resolves its finding
/// and touches nothing else.
@Suite("Lint fixes")
struct LintFixTests {
    static let base = """
        version: 1
        name: base
        attempts: 3
        idempotency:
          methods: [GET]
        backoff:
          initial: 1s    # first wait
          max: 10s
          jitter: full
        retry_after:
          cap: 30s
        rules:
          - status: 5xx
            error: status_5xx
            action: retry
          - transport: [timeout]
            error: timeout
            action: retry
        default:
          error: network_error
          action: stop
        breaker: {}

        """

    let run = LintRun(root: .wholeFileSystem())

    func lint(_ text: String) -> [LintFinding] {
        run.lint(bytes: Array(text.utf8), path: "policy.yaml")
    }

    /// `text` with the fixes of its `id` findings applied.
    func fixed(_ text: String, _ id: String) throws -> (text: String, plan: FixPlan) {
        let findings = lint(text).filter { $0.id == id }
        #expect(!findings.isEmpty, "no \(id) finding to fix")
        #expect(findings.allSatisfy { $0.fix != nil }, "\(findings)")
        let plan = FixPlan(findings: findings) { _ in Array(text.utf8) }
        let change = try #require(plan.changes.first)
        return (String(decoding: change.fixed, as: UTF8.self), plan)
    }

    @Test("each fixable rule: the fix applied, lint no longer reports the rule, and only the fixed text changed", arguments: [
        ("RP107", "jitter: full", "jitter: none", "jitter: full"),
        ("RP104", "max: 10s", "max: 500ms", "max: 1s"),
        ("RP010", "backoff:", "bakcoff:", "backoff:"),
        ("RP013", "jitter: full", "jitter: ful", "jitter: full"),
        ("RP017", "transport: [timeout]", "transport: [timout]", "transport: [timeout]"),
    ])
    func fixResolves(id: String, original: String, broken: String, repaired: String) throws {
        let text = Self.base.replacingOccurrences(of: original, with: broken)
        #expect(lint(text).contains { $0.id == id }, "\(lint(text))")
        let (result, _) = try fixed(text, id)
        #expect(result == Self.base.replacingOccurrences(of: original, with: repaired))
        #expect(!lint(result).contains { $0.id == id }, "\(lint(result))")
    }

    @Test("RP116: an unused id leaves its comment; a comment left empty goes, with its line when it stood alone")
    func unusedSuppression() throws {
        let trailing = Self.base.replacingOccurrences(of: "attempts: 3\n", with: "attempts: 3   # retry-policy: disable=RP105\n")
        #expect(try fixed(trailing, "RP116").text == Self.base)
        let alone = Self.base.replacingOccurrences(of: "attempts: 3\n", with: "attempts: 3\n# retry-policy: disable=RP105\n")
        #expect(try fixed(alone, "RP116").text == Self.base)
        let listed = Self.base.replacingOccurrences(of: "  max: 10s\n", with: "  max: 10s  # retry-policy: disable=RP101,rp105 why\n")
        let (once, plan) = try fixed(listed, "RP116")
        #expect(once == Self.base.replacingOccurrences(of: "  max: 10s\n", with: "  max: 10s  # retry-policy: disable=rp105 why\n"))
        #expect(plan.skipped.count == 1)
        #expect(plan.skipped.first?.reason == "its edit overlaps another fix; run lint --fix again")
        #expect(try fixed(once, "RP116").text == Self.base)
    }

    @Test("a finding whose fix is a choice gets none")
    func choicesAreNotFixed() {
        let shrinking = Self.base.replacingOccurrences(of: "  jitter: full\n", with: "  multiplier: 0.5\n  jitter: full\n")
        let findings = lint(shrinking).filter { $0.id == "RP105" }
        #expect(findings.count == 1)
        #expect(findings.allSatisfy { $0.fix == nil })
    }

    @Test("a file changed after lint read it: the fix is skipped, not applied at the wrong place")
    func staleFix() throws {
        let text = Self.base.replacingOccurrences(of: "jitter: full", with: "jitter: none")
        let findings = lint(text).filter { $0.id == "RP107" }
        let shifted = "# a new first line\n" + text
        let plan = FixPlan(findings: findings) { _ in Array(shifted.utf8) }
        #expect(plan.changes.isEmpty || String(decoding: plan.changes[0].fixed, as: UTF8.self) != shifted.replacingOccurrences(of: "none", with: "full"))
        let unchanged = FixPlan(findings: findings) { _ in Array("version: 1\n".utf8) }
        #expect(unchanged.changes.isEmpty)
        #expect(unchanged.skipped.map(\.reason) == ["the file changed after it was linted"])
    }

    @Test("the unified diff of edits on separate lines: two hunks, counts and line numbers as diff -u writes them")
    func diffHunks() {
        let lines = (1...20).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let source = FixSource(file: "f.yaml", text: lines)
        let first = source.plainScalar(line: 2, column: 1)!
        let second = source.plainScalar(line: 15, column: 1)!
        let deleted = (source.lineStarts[17], source.lineStarts[18])
        let edits = [
            source.edit(first.start, first.end, with: "two\nand a half"),
            source.edit(second.start, second.end, with: "fifteen"),
            source.edit(deleted.0, deleted.1, with: ""),
        ]
        #expect(UnifiedDiff.render(file: "f.yaml", original: Array(lines.utf8), edits: edits) == """
            --- a/f.yaml
            +++ b/f.yaml
            @@ -1,5 +1,6 @@
             line 1
            -line 2
            +two
            +and a half
             line 3
             line 4
             line 5
            @@ -12,9 +13,8 @@
             line 12
             line 13
             line 14
            -line 15
            +fifteen
             line 16
             line 17
            -line 18
             line 19
             line 20

            """)
    }

    @Test("a last line without a line break is marked as diff -u marks it")
    func noNewlineAtEnd() {
        let source = FixSource(file: "f.yaml", text: "a: 1\njitter: none")
        let value = source.valueAfterKey(line: 2, column: 1)!
        #expect(UnifiedDiff.render(file: "f.yaml", original: source.bytes, edits: [source.edit(value.start, value.end, with: "full")]) == """
            --- a/f.yaml
            +++ b/f.yaml
            @@ -1,2 +1,2 @@
             a: 1
            -jitter: none
            \\ No newline at end of file
            +jitter: full
            \\ No newline at end of file

            """)
    }
}
