import RetryPolicyCore

extension RetryEvent: CustomStringConvertible {
    /// One line of a human-readable timeline (the `--verbose` output of
    /// `retry-policy request`).
    public var description: String {
        switch self {
        case .attemptStarted(let number, let at):
            return "[\(at.formattedForHumans)] attempt \(number) sent"
        case .attemptFinished(let record):
            let outcome: String
            switch record.outcome {
            case .response(let status, _): outcome = "HTTP \(status)"
            case .transport(let transport): outcome = "transport failure \(transport.rawValue)"
            }
            var decision: String
            switch record.decision.action {
            case .success: decision = "success"
            case .retry(let delay):
                decision = "retry after \(delay.formattedForHumans)"
                if record.decision.serverDirected { decision += " (server-directed)" }
                if record.decision.refreshCredentials { decision += ", refreshing credentials" }
            case .stop(let error, let reason): decision = "stop: \(error.kind.rawValue) (\(reason.rawValue))"
            }
            let rule = record.decision.ruleLocation.map { ", rule at \($0)" } ?? (record.decision.ruleIndex == nil ? ", default" : "")
            return "[\((record.startedAt + record.duration).formattedForHumans)] attempt \(record.number): \(outcome) in \(record.duration.formattedForHumans) -> \(decision)\(rule)"
        case .waiting(let delay, let cause):
            return "waiting \(delay.formattedForHumans) (\(cause.rawValue))"
        case .refreshingCredentials:
            return "refreshing credentials"
        case .succeeded(let attempts, let elapsed):
            return "[\(elapsed.formattedForHumans)] succeeded after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        case .failed(let error, let reason, let attempts, let elapsed):
            return "[\(elapsed.formattedForHumans)] failed after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(error.message) (\(reason.rawValue))"
        }
    }
}
