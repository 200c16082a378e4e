/// The text forms of a decision, in one place: `decide`, `simulate`,
/// `diff`, policy tests and the executor's timeline all write a decision
/// with these, so that one decision reads the same wherever it is shown.
package enum DecisionText {
    /// `1s` for a fixed delay, `0ms-1s` for a jittered one.
    package static func delay(_ range: ClosedRange<Duration>) -> String {
        range.lowerBound == range.upperBound
            ? range.lowerBound.formattedForHumans
            : "\(range.lowerBound.formattedForHumans)-\(range.upperBound.formattedForHumans)"
    }

    /// A drawn delay or a moment to the millisecond: `390ms` reads better
    /// than `0.39s`, and the JSON forms keep the exact value.
    package static func millisecond(_ duration: Duration) -> String {
        Duration.milliseconds(Int64(duration.milliseconds.rounded())).formattedForHumans
    }

    /// `HTTP 503`, `transport failure timeout`, `condition quota_exceeded`,
    /// `gRPC UNAVAILABLE`.
    package static func outcome(_ outcome: AttemptOutcome) -> String {
        switch outcome {
        case .response(let status, _): "HTTP \(status)"
        case .transport(let failure): "transport failure \(failure.rawValue)"
        case .condition(let condition): "condition \(condition.rawValue)"
        case .grpc(let status, _): "gRPC \(status.name)"
        }
    }

    /// `stop: status_429 (not_retryable)`.
    package static func stop(_ error: String, _ reason: String) -> String {
        "stop: \(error) (\(reason))"
    }

    /// `success`, `retry after 0ms-1s [status_5xx]`,
    /// `stop: status_429 (not_retryable)`: what two decisions are compared
    /// by (`diff`, policy tests).
    package static func summary(_ signature: DecisionOutline.Signature) -> String {
        switch signature.action {
        case .success: "success"
        case .retry: "retry after \(signature.delay.map(delay) ?? "0s") [\(signature.error?.rawValue ?? "internal_error")]"
        case .stop: stop(signature.error?.rawValue ?? "internal_error", signature.reason?.rawValue ?? "not_retryable")
        }
    }

    /// One attempt's decision as a request's live timeline shows it, with
    /// the delay actually drawn and the rule that decided:
    /// `retry after 1s (server-directed), rule at p.yaml:7:5`,
    /// `stop: status_4xx (not_retryable), default rule`.
    package static func step(_ decision: Decision) -> String {
        var text: String
        switch decision.action {
        case .success: text = "success"
        case .retry(let delay):
            text = "retry after \(delay.formattedForHumans)"
            if decision.serverDirected { text += " (server-directed)" }
            if decision.refreshCredentials { text += ", refreshing credentials" }
        case .stop(let error, let reason): text = stop(error.kind.rawValue, reason.rawValue)
        }
        if let location = decision.ruleLocation {
            text += ", rule at \(location)"
        } else if let index = decision.ruleIndex {
            text += ", rule \(index + 1)"
        } else if case .stop = decision.action {
            text += ", default rule"
        }
        return text
    }

    /// The decision of one row of a simulated timeline: `retry in 390ms
    /// (drawn from 0ms-1s) [status_5xx]`, `stop: status_4xx (not_retryable)`.
    /// A hedged request's retry is its next copy: `next copy now
    /// [status_5xx]`.
    package static func timelineRow(_ outline: DecisionOutline, drawn: Duration?, hedged: Bool) -> String {
        let error = outline.error?.rawValue ?? ""
        switch outline.action {
        case .success:
            return "success"
        case .retry where hedged:
            let next = outline.serverDirected ? "next copy in \(millisecond(drawn ?? .zero)) (server-directed)" : "next copy now"
            return next + " [\(error)]"
        case .retry:
            var text = "retry in \(millisecond(drawn ?? .zero))"
            if let bounds = outline.delay, bounds.lowerBound != bounds.upperBound {
                text += " (drawn from \(delay(bounds)))"
            } else if outline.serverDirected {
                text += " (server-directed)"
            }
            return text + " [\(error)]"
        case .stop:
            return stop(error, outline.reason?.rawValue ?? "")
        }
    }

    /// One sentence that says what happens to `input` and which rule made
    /// it so (`retry-policy decide`): `Retry after 100ms-1s (full jitter):
    /// HTTP 503 matches the rule at p.yaml:7:5, which retries it as
    /// status_5xx; this was attempt 1 of 4.`
    package static func sentence(_ outline: DecisionOutline, input: DecisionInput, policy: Policy) -> String {
        let what = outcome(input.outcome)
        let ruleText: String
        if let location = outline.rule {
            let kind = outline.ruleIndex == nil ? "the default" : "the rule"
            ruleText = "\(kind) at \(location.file):\(location.line)"
        } else if outline.ruleIndex == nil && outline.action == .success {
            return "Success: \(what) is a 2xx and no rule matches it."
        } else {
            ruleText = outline.ruleIndex == nil ? "no rule and no default (built-in stop)" : "rule \(outline.ruleIndex! + 1)"
        }
        let matched = outline.ruleIndex == nil ? "no rule matches \(what), so \(ruleText) decides" : "\(what) matches \(ruleText)"
        let error = outline.error?.rawValue ?? "internal_error"
        let platformName = policy.platform.flatMap { platform in outline.error.flatMap { policy.platformName(of: $0, on: platform) } }
        let errorText = platformName.map { "\(error) (\($0))" } ?? error
        let attemptText = "attempt \(input.attempt) of \(policy.attempts)"
        switch outline.action {
        case .success:
            return "Success: \(matched), which treats it as a success."
        case .retry:
            let delayText = outline.delay.map(delay) ?? "0s"
            let source = outline.serverDirected ? ", as the server asked" : (outline.delay.map { $0.lowerBound != $0.upperBound } == true ? " (\(policy.backoff.jitter.rawValue) jitter)" : "")
            let retries = outline.ruleIndex == nil ? "and it retries it" : "which retries it"
            return "Retry after \(delayText)\(source): \(matched), \(retries) as \(errorText); this was \(attemptText)."
        case .stop:
            let reason = outline.reason ?? .notRetryable
            let because: String
            switch reason {
            case .notRetryable:
                because = outline.ruleIndex != nil && policy.rules[outline.ruleIndex!].action == .retry
                    ? "which retries it only once after refreshing credentials, and that retry was used"
                    : "which does not retry it"
            case .attemptsExhausted: because = "which retries it, but \(attemptText) was the last"
            case .deadlineExceeded:
                let total = policy.timeouts(for: input.endpoint).total.map(\.formattedForHumans) ?? "?"
                because = "which retries it, but the next attempt could not start before the total deadline \(total) (elapsed \(input.elapsed.formattedForHumans))"
            case .budgetExhausted: because = "which retries it, but the retry budget is empty"
            case .notIdempotent: because = "which retries it, but \(input.method) is not idempotent under the policy and the request is not marked idempotent"
            case .retryAfterTooLong:
                let cap = policy.retryAfter.cap.map(\.formattedForHumans) ?? "?"
                var asked = "a delay"
                if let delay = policy.retryAfter.serverDelay(in: input.outcome, now: input.now) {
                    asked = delay >= RetryAfterValue.maximumDelay
                        ? "a delay too large to represent (292 years or more)" : delay.formattedForHumans
                }
                because = "which retries it, but the server asked for \(asked), above the cap \(cap)"
            case .cancelled: because = "and cancelled requests are never retried"
            case .circuitOpen: because = "which retries it, but the circuit breaker is open"
            case .serverPushback:
                because = "which retries it, but the server's \(GRPCStatusCode.pushbackKey) asked for no retry (a negative or malformed value, gRFC A6)"
            }
            // "the default ... decides, which ..." reads oddly; the default is not a rule.
            let which = "which "
            let joined = outline.ruleIndex == nil && because.hasPrefix(which) ? "and it " + because.dropFirst(which.count) : because
            return "Stop with \(errorText) (\(reason.rawValue)): \(matched), \(joined)."
        }
    }
}
