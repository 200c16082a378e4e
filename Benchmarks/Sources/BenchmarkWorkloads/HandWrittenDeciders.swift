import RetryPolicyCore

/// The physical floor: the same mappings as the benchmark policies, written
/// as one `switch` over status codes the way seed 004's SDK (and seed 000's
/// TMDb client) write them by hand. They produce core `Decision` values so
/// that each run can check, input by input, that both sides decide the same
/// before comparing their speed.
public enum HandWritten {
    @usableFromInline static let maximumRetryAfterSeconds = 1_000_000_000

    /// `Retry-After` as delta-seconds, as hand-written clients parse it.
    @inlinable @inline(__always)
    static func retryAfter(_ headers: ResponseHeaders) -> Duration? {
        guard let text = headers["Retry-After"], let seconds = Int(text),
            seconds >= 0, seconds <= maximumRetryAfterSeconds
        else { return nil }
        return .seconds(seconds)
    }

    /// Seed 004: single attempt; 200 success, 204 no fill, 429 status_429
    /// (respect Retry-After), 5xx status_5xx, timeout, anything else a
    /// network error.
    @inlinable
    public static func singleAttempt(_ input: DecisionInput) -> Decision {
        switch input.outcome {
        case .response(let status, let headers):
            let kind: SDKError.Kind
            switch status {
            case 200: return Decision(action: .success)
            case 204: kind = .noFill
            case 429: kind = .status429
            case 500...599: kind = .status5xx
            case 201...299: return Decision(action: .success)
            default: kind = .networkError
            }
            let error = SDKError(kind: kind, statusCode: status, retryAfter: retryAfter(headers))
            return Decision(action: .stop(error, .notRetryable))
        case .transport(let failure):
            let kind: SDKError.Kind = failure == .timeout ? .timeout : .networkError
            let reason: StopReason = failure == .cancelled ? .cancelled : .notRetryable
            return Decision(action: .stop(SDKError(kind: kind, transport: failure), reason))
        case .condition(let condition):
            // The policy declares no conditions: its default decides.
            return Decision(action: .stop(SDKError(kind: .networkError, condition: condition), .notRetryable))
        case .grpc:
            // The policy has no gRPC rules (nor does the mix any gRPC
            // status): its default decides.
            return Decision(action: .stop(SDKError(kind: .networkError), .notRetryable))
        }
    }

    /// Seed 000's retry loop body: 429 and 5xx retried with exponential
    /// backoff and full jitter, Retry-After honoured up to 60 s, four
    /// attempts, idempotent methods only, 120 s deadline.
    @inlinable
    public static func retrying<G: RandomNumberGenerator>(_ input: DecisionInput, using generator: inout G) -> Decision {
        var error: SDKError
        var retryable: Bool
        var serverDelay: Duration?
        switch input.outcome {
        case .response(let status, let headers):
            switch status {
            case 200...299: return Decision(action: .success)
            case 429: error = SDKError(kind: .status429); retryable = true
            case 500...599: error = SDKError(kind: .status5xx); retryable = true
            case 401: error = SDKError(kind: .unauthorized); retryable = false
            case 404: error = SDKError(kind: .notFound); retryable = false
            default: error = SDKError(kind: .networkError); retryable = false
            }
            error.statusCode = status
            serverDelay = retryAfter(headers)
            error.retryAfter = serverDelay
        case .transport(let failure):
            switch failure {
            case .timeout: error = SDKError(kind: .timeout); retryable = true
            case .connectionLost, .offline, .dns, .connectionRefused:
                error = SDKError(kind: .networkError); retryable = true
            case .cancelled:
                return Decision(action: .stop(SDKError(kind: .networkError, transport: failure), .cancelled))
            default: error = SDKError(kind: .networkError); retryable = false
            }
            error.transport = failure
        case .condition(let condition):
            // The policy declares no conditions: its default decides.
            error = SDKError(kind: .networkError, condition: condition)
            retryable = false
        case .grpc:
            // No gRPC rules, and none in the mix: the default decides.
            error = SDKError(kind: .networkError)
            retryable = false
        }
        guard retryable else { return Decision(action: .stop(error, .notRetryable)) }
        guard input.attempt < 4 else { return Decision(action: .stop(error, .attemptsExhausted)) }
        switch input.method {
        case .get, .head, .put, .delete, .options: break
        default: return Decision(action: .stop(error, .notIdempotent))
        }
        let base = min(Int64(1_000_000_000) << (input.attempt - 1), 30_000_000_000)
        var delay = Duration.nanoseconds(Int64.random(in: 0...base, using: &generator))
        if let serverDelay { delay = min(serverDelay, .seconds(60)) }
        if input.elapsed + delay >= .seconds(120) { return Decision(action: .stop(error, .deadlineExceeded)) }
        return Decision(action: .retry(after: delay))
    }
}
