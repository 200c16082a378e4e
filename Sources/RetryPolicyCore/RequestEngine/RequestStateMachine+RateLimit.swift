/// The adaptive rate limiter's part in a request (a policy's
/// `rate_limit`): it may hold an attempt back, first tries and retries
/// alike, and it hears of every response.
extension RequestStateMachine {
    /// The limiter's answer for the next attempt: `nil` to go on with
    /// admission, or the wait (its token reserved) or the refusal.
    mutating func throughRateLimiter(_ limiter: AdaptiveRateLimiter, at time: RequestTime) -> Action? {
        switch limiter.admit(at: time.wall) {
        case .send:
            return nil
        case .wait(let wait):
            if let total = totalLimit, time.elapsed + wait >= total {
                limiter.giveBack(at: time.wall)
                var error = lastAttemptOrThrottlingError(limiter)
                error.detail = "the rate limiter's wait of \(wait.formattedForHumans) would pass the total deadline of \(total.formattedForHumans)"
                return refused(error, .deadline)
            }
            state = .rateLimited
            return .wait(wait, reason: .rateLimit)
        case .refuse:
            var error = lastAttemptOrThrottlingError(limiter)
            let most = limiter.configuration.maximumWait?.formattedForHumans ?? "its maximum wait"
            error.detail = "the adaptive rate limiter cannot send within \(most)"
            return refused(error, .rateLimit)
        }
    }

    /// Tells the limiter, if any, of a response: a throttling one when its
    /// error kind is one of the limiter's throttling errors.
    @inline(__always)
    func recordInRateLimiter(_ errorKind: SDKError.Kind?, at time: RequestTime) {
        guard let limiter = decider.state.rateLimiter else { return }
        limiter.record(throttled: errorKind.map(limiter.configuration.isThrottling) ?? false, at: time.wall)
    }

    private mutating func refused(_ error: SDKError, _ rejection: Admission.Rejection) -> Action {
        state = .finished
        self.rejection = rejection
        return .fail(RetryFailure(error: error, reason: rejection.stopReason, attempts: history))
    }

    /// The last attempt's error; before the first attempt, the limiter's
    /// first throttling error (what held the request back).
    private func lastAttemptOrThrottlingError(_ limiter: AdaptiveRateLimiter) -> SDKError {
        if history.last != nil || lastErrorKind != nil { return lastError }
        return SDKError(kind: limiter.configuration.throttlingErrors.min() ?? .status429)
    }
}
