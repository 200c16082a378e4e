import RetryPolicyCore

extension RetryEvent: CustomStringConvertible {
    /// One line of a human-readable timeline (the `--verbose` output of
    /// `retry-policy request`).
    public var description: String {
        switch self {
        case .attemptStarted(let number, let at):
            return "[\(at.formattedForHumans)] attempt \(number) sent"
        case .attemptFinished(let record):
            let end = (record.startedAt + record.duration).formattedForHumans
            let outcome = DecisionText.outcome(record.outcome)
            return "[\(end)] attempt \(record.number): \(outcome) in \(record.duration.formattedForHumans) -> \(DecisionText.step(record.decision))"
        case .waiting(let delay, let cause):
            return "waiting \(delay.formattedForHumans) (\(cause.rawValue))"
        case .refreshingCredentials:
            return "refreshing credentials"
        case .succeeded(let attempts, let elapsed):
            return "[\(elapsed.formattedForHumans)] succeeded after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        case .failed(let error, let reason, let attempts, let elapsed):
            return "[\(elapsed.formattedForHumans)] failed after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error.message) (\(reason.rawValue))"
        case .circuitBreaker(let transition):
            return transition.description
        case .nextHedge(let delay?):
            return "next copy in \(delay.formattedForHumans) unless an attempt answers first"
        case .nextHedge(nil):
            return "no further copy"
        }
    }
}
