import RetryPolicyCore

/// The upstream of a replay: a request's first attempt meets what the
/// recording shows it met; any later attempt, at its own time, a seeded
/// draw from the model of the upstream then (``TrafficModel``). Either
/// is cut at the attempt's time limit, as the executor cancels it.
struct RecordedResponder: TrafficResponder {
    let context: ReplayContext
    private var draws: SplitMix64

    init(context: ReplayContext, seed: UInt64) {
        self.context = context
        draws = SplitMix64(seed: seed &+ 0x9E37_79B9_7F4A_7C15)
    }

    mutating func respond(to attempt: TrafficAttempt) -> (outcome: AttemptOutcome, duration: Duration) {
        // Attempts start in time order: buckets behind this one are done.
        context.model.evict(before: attempt.time)
        context.run.peakHeldBuckets = max(context.run.peakHeldBuckets, context.model.heldBuckets)
        let record = context.active[attempt.id]!.record
        let answer: RecordedAttempt
        if attempt.number == 1 {
            answer = record.attempts[0]
        } else {
            answer = context.model.draw(endpoint: record.endpoint, at: attempt.time, using: &draws) ?? record.attempts[0]
        }
        let resolved = ScriptedResponse(outcome: answer.outcome).resolve(latency: answer.duration ?? .zero, timeLimit: attempt.timeLimit)
        context.active[attempt.id]!.lastEnd = max(context.active[attempt.id]!.lastEnd, attempt.time + resolved.duration)
        return resolved
    }
}
