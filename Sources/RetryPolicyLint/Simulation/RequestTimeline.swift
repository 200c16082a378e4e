import RetryPolicyCore

/// The life of one request under a policy, on a simulated clock: every
/// attempt's start, outcome, decision and delay, and the final result.
public struct RequestTimeline: Sendable {
    public struct Attempt: Sendable {
        public var number: Int
        /// Time since the request began.
        public var start: Duration
        /// How long the attempt took.
        public var duration: Duration
        public var response: ScriptedResponse
        public var decision: DecisionOutline
        /// The delay actually drawn (within `decision.delay`).
        public var delay: Duration?
    }

    public var attempts: [Attempt]
    /// The last decision: success or stop.
    public var result: DecisionOutline
    /// Time from the first attempt's start to the final outcome.
    public var elapsed: Duration

    /// A fixed wall-clock origin (2025-01-01T00:00:00Z) so that HTTP-date
    /// headers in scripts resolve the same on every machine.
    public static let origin = Timestamp(secondsSince1970: 1_735_689_600)

    /// Runs `responses` through a fresh decider for `policy`. Attempt *k*
    /// gets response *k*; when the script runs out, the last response
    /// repeats. Each attempt takes `latency`, except a `timeout`, which
    /// takes `per_attempt` when the policy sets it; an attempt still running
    /// at the total deadline is cut there, as the executor cancels it.
    public static func simulate(
        policy: Policy,
        responses: [ScriptedResponse],
        seed: UInt64,
        latency: Duration = .zero,
        method: HTTPMethod = .get,
        markedIdempotent: Bool = false,
        endpoint: String? = nil
    ) -> RequestTimeline {
        precondition(!responses.isEmpty, "a simulation needs at least one response")
        let decider = RetryDecider(policy: policy)
        var generator = SplitMix64(seed: seed)
        var clock = Duration.zero
        var attempts: [Attempt] = []
        var input = DecisionInput(
            outcome: responses[0].outcome, attempt: 1, elapsed: .zero, method: method,
            markedIdempotent: markedIdempotent, endpoint: endpoint, now: origin)
        let budget = policy.timeouts(for: endpoint)
        func attemptLength(of response: ScriptedResponse, startingAt start: Duration) -> Duration {
            let natural = (response.outcome == .transport(.timeout) ? budget.perAttempt : nil) ?? latency
            guard let total = budget.total, start + natural > total else { return natural }
            return max(total - start, .zero)
        }
        let limit = max(policy.attempts, 1) + 1
        while true {
            let index = min(attempts.count, responses.count - 1)
            let response = responses[index]
            let start = clock
            let duration = attemptLength(of: response, startingAt: start)
            clock += duration
            if attempts.isEmpty {
                input.outcome = response.outcome
                input.elapsed = clock
                input.now = origin + clock
            }
            let decision = decider.decide(input, using: &generator)
            let outline = DecisionOutline(decision, policy: policy)
            attempts.append(Attempt(
                number: input.attempt, start: start, duration: duration, response: response,
                decision: outline, delay: decision.delay))
            guard let delay = decision.delay, attempts.count < limit else {
                return RequestTimeline(attempts: attempts, result: outline, elapsed: clock)
            }
            clock += delay
            let nextResponse = responses[min(attempts.count, responses.count - 1)]
            let nextDuration = attemptLength(of: nextResponse, startingAt: clock)
            input.advance(after: decision, outcome: nextResponse.outcome, elapsed: clock + nextDuration, now: origin + clock + nextDuration)
        }
    }
}
