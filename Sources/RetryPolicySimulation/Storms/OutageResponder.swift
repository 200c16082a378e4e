import RetryPolicyCore

/// The server of an outage storm: the outage response to every attempt
/// that starts before the outage ends, 200 afterwards, each taking the
/// storm's latency (cut at the attempt's time limit).
struct OutageResponder: TrafficResponder {
    let outage: Duration
    let outageResponse: ScriptedResponse
    let latency: Duration
    private let recovered = ScriptedResponse(outcome: .status(200))

    init(outage: Duration, outageResponse: ScriptedResponse, latency: Duration) {
        self.outage = outage
        self.outageResponse = outageResponse
        self.latency = latency
    }

    func respond(to attempt: TrafficAttempt) -> (outcome: AttemptOutcome, duration: Duration) {
        let scripted = attempt.time < outage ? outageResponse : recovered
        return scripted.resolve(latency: latency, timeLimit: attempt.timeLimit)
    }
}
