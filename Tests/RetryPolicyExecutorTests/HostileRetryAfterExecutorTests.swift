import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import Testing

/// A server that answers every request with 429 and a hostile
/// `Retry-After` must never make the executor sleep past the policy's cap,
/// whatever the value, the header format, the cap policy or the wall-clock
/// time, and must never crash it.
@Suite("Hostile Retry-After through the executor")
struct HostileRetryAfterExecutorTests {
    static let cap = TestPolicies.hostileCap
    static let backoffMax = TestPolicies.hostileBackoffMax

    static let hostileValues: [String] = [
        "-1", "-9223372036854775808", "9223372036854775808", "100000000000000000000", "1000000001", "1e9", "+5",
        "٣", "５", "🕐", "\u{0}", "\u{FEFF}5", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT",
        "Sun Nov  6 08:49:37 1994", "Sat, 99 Dec 9999 99:99:99 GMT", String(repeating: "9", count: 5000), "61", "59",
    ]

    /// A clock whose sleeps return at once and move time forward, recording
    /// every requested wait.
    final class RecordingClock: Clock, Sendable {
        struct Instant: InstantProtocol {
            var offset: Duration
            func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
            func duration(to other: Instant) -> Duration { other.offset - offset }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        }
        private let state = LockedValue((now: Duration.zero, sleeps: [Duration]()))
        var now: Instant { Instant(offset: state.withLock { $0.now }) }
        var minimumResolution: Duration { .zero }
        var sleeps: [Duration] { state.withLock { $0.sleeps } }

        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            try Task.checkCancellation()
            state.withLock { state in
                state.sleeps.append(deadline.offset - state.now)
                if deadline.offset > state.now { state.now = deadline.offset }
            }
        }
    }

    struct RateLimited: RetryableResponse {
        var header: String
        var value: String
        var statusCode: Int { 429 }
        func headerValue(named name: String) -> String? {
            name.lowercased() == header.lowercased() ? value : nil
        }
    }

    static func policy(aboveCap: RetryAfterPolicy.AboveCap, combine: RetryAfterPolicy.Combine) -> Policy {
        TestPolicies.hostile(attempts: 4, statuses: [429], aboveCap: aboveCap, combine: combine)
    }

    /// Runs one request against the hostile server; returns every wait.
    static func waits(value: String, header: String, policy: Policy, wallClock: Timestamp, seed: UInt64) async -> [Duration] {
        let clock = RecordingClock()
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, wallClockNow: wallClock)
        var generator = SplitMix64(seed: seed)
        let response = RateLimited(header: header, value: value)
        do {
            _ = try await executor.runConcurrently(using: &generator) { _ in response }
            Issue.record("a server that only answers 429 cannot succeed")
        } catch {
            #expect(error.kind == .status429)
        }
        return clock.sleeps
    }

    @Test("Fixed hostile values never make the executor wait past the cap")
    func fixedValues() async {
        for aboveCap in RetryAfterPolicy.AboveCap.allCases {
            for combine in RetryAfterPolicy.Combine.allCases {
                let policy = Self.policy(aboveCap: aboveCap, combine: combine)
                for value in Self.hostileValues {
                    for header in ["Retry-After", "retry-after-ms", "X-RateLimit-Reset"] {
                        for wallClock in [Int64.min, 0, 1_700_000_000_000_000_000, .max] {
                            let waits = await Self.waits(
                                value: value, header: header, policy: policy,
                                wallClock: Timestamp(nanosecondsSince1970: wallClock), seed: 1)
                            #expect(waits.allSatisfy { $0 >= .zero && $0 <= Self.cap },
                                    "\(aboveCap)/\(combine) \(header): '\(value)' at \(wallClock) waited \(waits)")
                        }
                    }
                }
            }
        }
    }

    @Test("The recording clock sees the waits: a 61 s request is clamped to 60 s, 59 s is honoured")
    func waitsAreObserved() async {
        let clamp = Self.policy(aboveCap: .clamp, combine: .server)
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        let clamped = await Self.waits(value: "61", header: "Retry-After", policy: clamp, wallClock: now, seed: 1)
        #expect(clamped.contains(.seconds(60)), "\(clamped)")
        let honoured = await Self.waits(value: "59", header: "Retry-After", policy: clamp, wallClock: now, seed: 1)
        #expect(honoured.contains(.seconds(59)), "\(honoured)")
        let stopped = await Self.waits(
            value: "61", header: "Retry-After", policy: Self.policy(aboveCap: .stop, combine: .server), wallClock: now, seed: 1)
        #expect(stopped.allSatisfy { $0 <= .zero }, "\(stopped)")
    }

    @Test("Random hostile values never make the executor wait past the cap")
    func randomValues() async {
        await propertyCheck(
            count: 300,
            input: Gen.int64(), Gen<Character>.latin1.string(of: 0...24), Gen.int(in: 0...2), Gen.int(in: 0...5),
            Gen.int64()
        ) { number, text, headerIndex, variant, wallClock in
            let header = ["Retry-After", "retry-after-ms", "X-RateLimit-Reset"][headerIndex]
            let aboveCap = RetryAfterPolicy.AboveCap.allCases[variant % 3]
            let combine = RetryAfterPolicy.Combine.allCases[variant / 3]
            let value = number % 2 == 0 ? "\(number)" : "\(number % 1000)\(text)"
            let waits = await Self.waits(
                value: value, header: header, policy: Self.policy(aboveCap: aboveCap, combine: combine),
                wallClock: Timestamp(nanosecondsSince1970: wallClock), seed: UInt64(bitPattern: number))
            #expect(waits.allSatisfy { $0 >= .zero && $0 <= Self.cap }, "\(header): '\(value)' waited \(waits)")
        }
    }
}
