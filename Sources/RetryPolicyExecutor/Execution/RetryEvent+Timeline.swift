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
            case .condition(let condition): outcome = "condition \(condition.rawValue)"
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
            var rule = ""
            if let location = record.decision.ruleLocation {
                rule = ", rule at \(location)"
            } else if let index = record.decision.ruleIndex {
                rule = ", rule \(index + 1)"
            } else if case .stop = record.decision.action {
                rule = ", default rule"
            }
            return "[\((record.startedAt + record.duration).formattedForHumans)] attempt \(record.number): \(outcome) in \(record.duration.formattedForHumans) -> \(decision)\(rule)"
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
