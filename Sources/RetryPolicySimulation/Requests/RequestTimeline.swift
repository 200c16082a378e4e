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

    /// A pause between attempts.
    public struct Wait: Hashable, Sendable {
        /// Time since the request began.
        public var start: Duration
        public var duration: Duration
        public var reason: WaitReason
    }

    public var attempts: [Attempt]
    /// Every pause, in order: backoffs, server-directed delays and
    /// cooldowns.
    public var waits: [Wait]
    /// The last decision: success or stop.
    public var result: DecisionOutline
    /// Time from the first attempt's start to the final outcome.
    public var elapsed: Duration

    /// A fixed wall-clock origin (2025-01-01T00:00:00Z) so that HTTP-date
    /// headers in scripts resolve the same on every machine.
    package static let origin = Timestamp(secondsSince1970: 1_735_689_600)

    /// Runs `responses` through a fresh decider for `policy`, on the same
    /// `RequestStateMachine` the executor drives, with simulated time.
    /// Attempt *k* gets response *k*; when the script runs out, the last
    /// response repeats. Each attempt takes `latency` (see
    /// `ScriptedResponse.resolve(latency:timeLimit:)` for attempts that
    /// run into their time limit).
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
        return simulate(
            policy: policy, responses: responses.map { ($0, latency) }, seed: seed, method: method,
            markedIdempotent: markedIdempotent, endpoint: endpoint)
    }

    /// Runs a script where every response has its own latency.
    public static func simulate(
        policy: Policy,
        responses: [(response: ScriptedResponse, latency: Duration)],
        seed: UInt64,
        method: HTTPMethod = .get,
        markedIdempotent: Bool = false,
        endpoint: String? = nil,
        decider: RetryDecider? = nil
    ) -> RequestTimeline {
        precondition(!responses.isEmpty, "a simulation needs at least one response")
        var generator = SplitMix64(seed: seed)
        var request = SimulatedRequest(
            machine: RequestStateMachine(
                decider: decider ?? RetryDecider(policy: policy),
                request: RetryRequest(method: method, markedIdempotent: markedIdempotent, endpoint: endpoint),
                concurrentAttempts: true),
            startedAt: .zero, origin: origin)
        var attempts: [Attempt] = []
        var waits: [Wait] = []
        var recorded = 0
        var action = request.start()
        while true {
            // Every attempt the last event finished (a hedged request's
            // cancelled copies too), with its decision.
            let history = request.machine.history
            for record in history[recorded...] {
                attempts.append(Attempt(
                    number: record.number, start: record.startedAt, duration: record.duration,
                    response: ScriptedResponse(outcome: record.outcome),
                    decision: DecisionOutline(record.decision, policy: policy), delay: record.decision.delay))
            }
            recorded = history.count
            if case .wait(let duration, let reason) = action {
                waits.append(Wait(start: request.now, duration: duration, reason: reason))
            }
            let finished = request.perform(action) { start in
                let scripted = responses[min(start.number - 1, responses.count - 1)]
                return scripted.response.resolve(latency: scripted.latency, timeLimit: start.timeLimit)
            }
            switch finished {
            case .none:
                action = request.advance(using: &generator)
            case .succeed?:
                let decision = request.machine.history[request.machine.history.count - 1].decision
                return RequestTimeline(
                    attempts: attempts, waits: waits, result: DecisionOutline(decision, policy: policy),
                    elapsed: request.now)
            case .fail(let failure)?:
                let result: DecisionOutline
                if let last = failure.attempts.last, last.decision.error == failure.error,
                    last.decision.stopReason == failure.reason
                {
                    result = DecisionOutline(last.decision, policy: policy)
                } else {
                    // Stopped between attempts (a cooldown or the deadline).
                    result = DecisionOutline(Decision(action: .stop(failure.error, failure.reason)), policy: policy)
                }
                return RequestTimeline(attempts: attempts, waits: waits, result: result, elapsed: request.now)
            default:
                preconditionFailure("perform returns only the action that ends the request")
            }
        }
    }
}
