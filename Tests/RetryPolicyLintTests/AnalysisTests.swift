import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicyLint

@Suite("Diff and table")
struct AnalysisTests {
    @Test("a policy never differs from itself; the comparison covers the whole input space")
    func diffSelf() {
        let comparison = PolicyDiff.compare(cleanPolicy(), cleanPolicy())
        #expect(comparison.isIdentical)
        #expect(comparison.comparedInputs == (500 + 10) * 3 * 9)
    }

    @Test("differences are grouped into status ranges and attempt ranges")
    func diffGrouping() {
        var other = cleanPolicy()
        other.rules[2].action = .stop  // 5xx no longer retried
        let comparison = PolicyDiff.compare(cleanPolicy(), other, methods: [.get])
        let texts = comparison.differences.map(\.inputText)
        #expect(texts == ["status 500, 502-599, attempt 1", "status 500, 502-599, attempt 2", "status 500, 502-599, attempt 3"])
        #expect(comparison.differences[0].left.description == "retry after 0s-1s [status_5xx]")
        #expect(comparison.differences[0].right.description == "stop: status_5xx (not_retryable)")
        #expect(comparison.differences[2].left.description == "stop: status_5xx (attempts_exhausted)")
    }

    @Test("the error table follows the seed's shape: one row per range with the same decision")
    func table() {
        let policy = Policy(
            name: "ios", platform: "ios", attempts: 1,
            retryAfter: RetryAfterPolicy(cap: .seconds(60), cooldown: .wait),
            rules: [
                rule([.code(204)], error: .noFill, action: .stop, line: 10),
                rule([.code(429)], error: .status429, action: .stop, line: 11),
                rule([.statusClass(5)], error: .status5xx, action: .stop, line: 12),
                rule(transports: [.timeout], error: .timeout, action: .stop, line: 13),
                rule(transports: [.dns, .tls], error: .networkError, action: .stop, line: 14),
            ],
            defaultRule: DefaultRule(error: .networkError, action: .stop, location: at(16)))
        let table = ErrorTable(policy: policy)
        #expect(table.platforms == ["ios"])
        let markdown = table.markdown
        #expect(markdown.hasPrefix("| HTTP Status | SDK Error | Retry? | Explanation |\n|-------------|-----------|--------|-------------|\n"))
        #expect(markdown.contains("| 204 | `SDKError.noFill` | No | No Content |"))
        #expect(markdown.contains("| 500-599 | `SDKError.status_5xx` | No | Server error; respect Retry-After (cap 1m) |"))
        #expect(markdown.contains("| Timeout | `SDKError.timeout` | No | Request exceeded timeout budget |"))
        // Transport failures with the same decision share a row, whether a rule or the default decides them.
        #expect(markdown.contains("| Connection lost/Offline/DNS/SSL/TLS/Connection refused/Invalid URL/Decoding/Unknown | `SDKError.networkError` | No | Network connectivity failure |"))
        #expect(markdown.contains("| 300-428 | `SDKError.networkError` | No | Redirection / client error |"))
    }
}
