import RetryPolicyCore

/// What a replay's arrivals, responder and tally share while
/// ``SimulatedTraffic`` runs them: the model of the upstream, the requests
/// in flight, and the recording's own numbers. One object, referenced by
/// the three, because the driver holds each of them `inout` on its own.
final class ReplayContext {
    let policy: Policy
    let configuration: ReplayDriver.Configuration
    var model: TrafficModel
    var run: ReplayRun
    /// The recording's time zero: the first recorded request's start.
    let origin: Timestamp
    /// Requests in flight, by arrival id: what the responder answers their
    /// first attempt with, and what the tally needs to measure their waits.
    var active: [Int: Active] = [:]
    /// The recordings' failure to read, which ends the arrivals; the
    /// driver throws it once the requests in flight are done.
    var failure: (any Error)?

    struct Active {
        var record: RecordedRequest
        /// The arrival time, then the end of the latest attempt.
        var lastEnd: Duration
        var waited: Duration = .zero
    }

    /// Whether a recorded outcome is a success under the policy's rules,
    /// without its state (budget, breaker, cooldown) taking part.
    private let classifier: RetryDecider

    init(policy: Policy, configuration: ReplayDriver.Configuration, origin: Timestamp) {
        self.policy = policy
        self.configuration = configuration
        self.origin = origin
        model = TrafficModel(origin: origin, bucketWidth: configuration.bucket, seed: configuration.seed)
        run = ReplayRun(policy: policy, window: configuration.window)
        var stateless = policy
        stateless.budget = nil
        stateless.breaker = nil
        stateless.retryAfter.cooldown = .off
        classifier = RetryDecider(policy: stateless)
    }

    /// Adds a recorded request to the model and to the recording's counts.
    func ingest(_ record: RecordedRequest) {
        model.add(record)
        run.firstStart = run.firstStart ?? record.start
        run.lastStart = record.start
        // Saturating: the readers bound a record's attempts, but the sum
        // over a recording is not theirs to bound.
        let sum = run.recordedAttempts.addingReportingOverflow(record.recordedAttemptCount)
        run.recordedAttempts = sum.overflow ? Int.max : sum.partialValue
        var time = record.start.duration(since: origin)
        run.recordedLoad.add(at: time, count: record.undescribedAttempts)
        for attempt in record.attempts {
            run.recordedLoad.add(at: time)
            time += attempt.duration ?? .zero
        }
        let last = record.attempts[record.attempts.count - 1].outcome
        let decision = classifier.decide(
            DecisionInput(outcome: last, attempt: 1, method: record.method, endpoint: record.endpoint, now: record.start))
        if decision.action == .success { run.recordedSucceeded += 1 }
    }
}
