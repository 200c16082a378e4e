import RetryPolicyCore

/// The server of simulated traffic: what each attempt comes to and how
/// long it takes. An outage storm answers with its outage response, then
/// 200; a replay answers what the recording shows at that time.
public protocol TrafficResponder {
    mutating func respond(to attempt: TrafficAttempt) -> (outcome: AttemptOutcome, duration: Duration)
}
