/// How a policy treats a delay the server asks for.
///
/// Servers under load say how long to back off (`Retry-After`, RFC 9110
/// §10.2.3, and vendor headers such as `retry-after-ms`); honouring them is
/// the cheapest way to stop a retry storm, but a client must not stall for
/// hours because a server said so.
public struct RetryAfterPolicy: Hashable, Sendable {
    /// What to do when the server asks for longer than ``cap``.
    public enum AboveCap: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Stop with ``StopReason/retryAfterTooLong``; the error carries the
        /// server's value.
        case stop
        /// Wait ``cap`` instead.
        case clamp
        /// Disregard the header and use the backoff.
        case ignore

        public var description: String { rawValue }
    }

    /// How the server's delay combines with the policy's own backoff.
    public enum Combine: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Wait exactly what the server asked (no jitter).
        case server
        /// Wait the larger of the server's value and the jittered backoff.
        case max

        public var description: String { rawValue }
    }

    /// What to do before an attempt while a server-directed cooldown from an
    /// earlier response is still running.
    public enum Cooldown: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Cooldowns are not tracked.
        case off
        /// Admission answers `wait(remaining)`.
        case wait
        /// Admission answers `reject(error)` at once, without a request.
        case reject

        public var description: String { rawValue }
    }

    /// A response header that carries a server-directed delay.
    public struct Header: Hashable, Sendable {
        public enum Format: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
            /// `Retry-After`: delta-seconds or an HTTP-date.
            case http
            /// Whole milliseconds (`retry-after-ms`).
            case milliseconds
            /// Whole seconds (as delta).
            case seconds
            /// A Unix time in seconds at which to retry (`X-RateLimit-Reset`).
            case unixSeconds = "unix_seconds"

            public var description: String { rawValue }
        }

        public var name: String
        public var format: Format

        public init(name: String, format: Format) {
            self.name = name
            self.format = format
        }

        public static let retryAfter = Header(name: "Retry-After", format: .http)
    }

    /// Whether server delays are honoured at all (rules may override).
    public var honor: Bool
    /// The longest server delay the policy accepts; `nil` means no cap,
    /// which lint reports.
    public var cap: Duration?
    public var aboveCap: AboveCap
    public var combine: Combine
    /// Headers consulted, in order; the first one present and valid wins.
    public var headers: [Header]
    public var cooldown: Cooldown
    public var location: SourceLocation?

    public init(
        honor: Bool = true,
        cap: Duration? = nil,
        aboveCap: AboveCap = .stop,
        combine: Combine = .server,
        headers: [Header] = [.retryAfter],
        cooldown: Cooldown = .off,
        location: SourceLocation? = nil
    ) {
        self.honor = honor
        self.cap = cap
        self.aboveCap = aboveCap
        self.combine = combine
        self.headers = headers
        self.cooldown = cooldown
        self.location = location
    }

    /// The server's delay for `outcome`: the configured headers of a
    /// response, the pushback of a gRPC call (when it asks for a retry);
    /// `nil` otherwise.
    package func serverDelay(in outcome: AttemptOutcome, now: Timestamp?) -> Duration? {
        switch outcome {
        case .response(_, let headers): serverDelay(in: headers, now: now)
        case .grpc(_, let metadata):
            if case .retry(let delay)? = GRPCPushback(in: metadata) { delay } else { nil }
        case .transport, .condition: nil
        }
    }

    /// The server's delay among `headers`, relative to `now`; `nil` when no
    /// configured header is present with a valid value.
    package func serverDelay(in responseHeaders: ResponseHeaders, now: Timestamp?) -> Duration? {
        for header in headers {
            guard let value = responseHeaders[header.name] else { continue }
            if let delay = RetryAfterValue.parse(value, format: header.format, now: now) { return delay }
        }
        return nil
    }
}
