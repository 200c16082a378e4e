import RetryPolicyCore
import Testing

/// The table of docs/policy-format.md ("Server delays and cooldowns"), one
/// test per cell: every `above_cap` x `combine` x `cooldown`, with a server
/// delay below the backoff, between the backoff and the cap, and above the
/// cap. Each cell checks what the request does after the response, what a
/// second request under the same policy meets at that moment, and that the
/// request's own retry is never held back by the cooldown it started.
@Suite struct ServerDelayTableTests {
    /// Constant 1.5 s backoff, cap 5 s.
    static func policy(
        _ aboveCap: RetryAfterPolicy.AboveCap, _ combine: RetryAfterPolicy.Combine, _ cooldown: RetryAfterPolicy.Cooldown
    ) -> Policy {
        Policy(
            name: "table", attempts: 3,
            backoff: Backoff(initial: .milliseconds(1500), max: .milliseconds(1500), multiplier: 1, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(5), aboveCap: aboveCap, combine: combine, cooldown: cooldown),
            rules: [Rule(statuses: [.code(429)], error: .status429, action: .retry)],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
    }

    /// What the request does after a 429 carrying the server's delay.
    enum Next: Equatable, CustomStringConvertible {
        case wait(Duration, WaitReason)
        case stop(StopReason)

        var description: String {
            switch self {
            case .wait(let delay, let reason): "wait \(delay) (\(reason))"
            case .stop(let reason): "stop (\(reason))"
            }
        }
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var aboveCap: RetryAfterPolicy.AboveCap
        var combine: RetryAfterPolicy.Combine
        var cooldown: RetryAfterPolicy.Cooldown
        var serverSeconds: Int
        var testDescription: String {
            "above_cap \(aboveCap), combine \(combine), cooldown \(cooldown), Retry-After \(serverSeconds)"
        }
    }

    static let cells: [Cell] = RetryAfterPolicy.AboveCap.allCases.flatMap { aboveCap in
        RetryAfterPolicy.Combine.allCases.flatMap { combine in
            RetryAfterPolicy.Cooldown.allCases.flatMap { cooldown in
                [1, 2, 10].map { Cell(aboveCap: aboveCap, combine: combine, cooldown: cooldown, serverSeconds: $0) }
            }
        }
    }

    /// The table itself, written out rather than derived.
    static func expectedNext(_ cell: Cell) -> Next {
        switch (cell.serverSeconds, cell.aboveCap, cell.combine) {
        // Below the backoff: `server` takes the server's delay, `max` the backoff.
        case (1, _, .server): .wait(.seconds(1), .server)
        case (1, _, .max): .wait(.milliseconds(1500), .server)
        // Between the backoff and the cap: the server's delay either way.
        case (2, _, _): .wait(.seconds(2), .server)
        // Above the cap.
        case (10, .stop, _): .stop(.retryAfterTooLong)
        case (10, .clamp, _): .wait(.seconds(5), .server)
        case (10, .ignore, _): .wait(.milliseconds(1500), .backoff)
        default: preconditionFailure("no such cell")
        }
    }

    /// How long the response keeps every request under the policy away,
    /// when cooldowns are tracked: the honoured delay, cut to the cap; an
    /// ignored header starts none.
    static func expectedCooldown(_ cell: Cell) -> Duration? {
        guard cell.cooldown != .off else { return nil }
        switch (cell.serverSeconds, cell.aboveCap) {
        case (1, _): return .seconds(1)
        case (2, _): return .seconds(2)
        case (10, .stop), (10, .clamp): return .seconds(5)
        case (10, .ignore): return nil
        default: preconditionFailure("no such cell")
        }
    }

    static let origin = Timestamp(secondsSince1970: 1_735_689_600)

    @Test("server delay and cooldown", arguments: cells)
    func cell(_ cell: Cell) throws {
        let decider = RetryDecider(policy: Self.policy(cell.aboveCap, cell.combine, cell.cooldown))
        var generator = SplitMix64(seed: 1)
        var request = RequestStateMachine(decider: decider)
        guard case .startAttempt(1, nil) = request.start(at: RequestTime(.zero, since: Self.origin)) else {
            Issue.record("the first attempt starts at once")
            return
        }
        let response = AttemptOutcome.response(status: 429, headers: ["Retry-After": "\(cell.serverSeconds)"])
        let finishedAt = RequestTime(.milliseconds(10), since: Self.origin)
        let next = request.attemptFinished(response, at: finishedAt, using: &generator)

        let expected = Self.expectedNext(cell)
        switch (next, expected) {
        case (.wait(let delay, let reason), .wait(let expectedDelay, let expectedReason)):
            #expect(delay == expectedDelay)
            #expect(reason == expectedReason)
        case (.fail(let failure), .stop(let reason)):
            #expect(failure.reason == reason)
            #expect(failure.error.retryAfter == .seconds(Int64(cell.serverSeconds)), "the error carries the server's value")
        default:
            Issue.record("expected \(expected), got \(next)")
        }

        // Another request under the same policy, at the same moment.
        var other = RequestStateMachine(decider: decider)
        let admitted = other.start(at: finishedAt)
        switch (Self.expectedCooldown(cell), cell.cooldown) {
        case (nil, _):
            guard case .startAttempt = admitted else { Issue.record("no cooldown: \(admitted)"); return }
        case (let length?, .wait):
            guard case .wait(let remaining, .cooldown) = admitted else { Issue.record("cooldown wait: \(admitted)"); return }
            #expect(remaining == length)
        case (let length?, .reject):
            guard case .fail(let failure) = admitted else { Issue.record("cooldown reject: \(admitted)"); return }
            #expect(failure.reason == .notRetryable)
            #expect(failure.error.kind == .status429)
            #expect(failure.error.retryAfter == length)
            #expect(failure.attempts.isEmpty)
            #expect(other.rejectedByCooldown)
        case (_, .off):
            Issue.record("cooldown off records nothing")
        }

        // The request's own retry goes out when its wait ends.
        if case .wait(let delay, _) = next {
            let after = request.waitFinished(at: RequestTime(.milliseconds(10) + delay, since: Self.origin))
            guard case .startAttempt(2, nil) = after else { Issue.record("retry after the wait: \(after)"); return }
        }
    }

    @Test("the example of a 429 with Retry-After 3 over a 1 s cap that is ignored: one 100 ms backoff, whatever the cooldown")
    func ignoredHeaderExample() {
        for cooldown in RetryAfterPolicy.Cooldown.allCases {
            let policy = Policy(
                name: "div", attempts: 3,
                backoff: Backoff(initial: .milliseconds(100), max: .milliseconds(100), multiplier: 1, jitter: .none),
                retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(1), aboveCap: .ignore, cooldown: cooldown),
                rules: [Rule(statuses: [.code(429)], error: .status429, action: .retry)],
                defaultRule: DefaultRule(error: .internalError, action: .stop))
            var machine = RequestStateMachine(decider: RetryDecider(policy: policy))
            var generator = SplitMix64(seed: 1)
            _ = machine.start(at: RequestTime(.zero, since: Self.origin))
            let first = machine.attemptFinished(
                .response(status: 429, headers: ["Retry-After": "3"]), at: RequestTime(.zero, since: Self.origin),
                using: &generator)
            guard case .wait(.milliseconds(100), .backoff) = first else { Issue.record("\(cooldown): \(first)"); continue }
            let second = machine.waitFinished(at: RequestTime(.milliseconds(100), since: Self.origin))
            guard case .startAttempt(2, _) = second else { Issue.record("\(cooldown): \(second)"); continue }
            let last = machine.attemptFinished(.status(200), at: RequestTime(.milliseconds(100), since: Self.origin), using: &generator)
            guard case .succeed = last else { Issue.record("\(cooldown): \(last)"); continue }
        }
    }
}
