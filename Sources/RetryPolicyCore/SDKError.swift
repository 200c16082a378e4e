/// The one error type every policy decision produces.
///
/// Seed behaviour: mobile SDKs report failures as `SDKError.status_429`,
/// `MediationError.STATUS_5XX` and so on; the taxonomy is data (``Kind``) so
/// that a policy file can name kinds the library does not predeclare.
public struct SDKError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An extensible, string-backed error kind, in the manner of
    /// `HTTPField.Name`: compare against the predeclared constants, or make
    /// your own.
    public struct Kind: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
        ExpressibleByStringLiteral
    {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }
        public var description: String { rawValue }
        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

        public static let noFill = Kind(rawValue: "no_fill")
        public static let networkError = Kind(rawValue: "network_error")
        public static let status429 = Kind(rawValue: "status_429")
        public static let status5xx = Kind(rawValue: "status_5xx")
        public static let timeout = Kind(rawValue: "timeout")
        public static let internalError = Kind(rawValue: "internal_error")
        public static let invalidPlacement = Kind(rawValue: "invalid_placement")
        public static let unauthorized = Kind(rawValue: "unauthorized")
        public static let notFound = Kind(rawValue: "not_found")
        public static let cancelled = Kind(rawValue: "cancelled")
        public static let decodingFailed = Kind(rawValue: "decoding_failed")

        /// The kinds every policy may use without declaring them.
        public static let standard: [Kind] = [
            .noFill, .networkError, .status429, .status5xx, .timeout, .internalError,
            .invalidPlacement, .unauthorized, .notFound, .cancelled, .decodingFailed,
        ]
    }

    /// What went wrong, in the taxonomy's terms.
    public var kind: Kind
    /// The HTTP status, when a response arrived.
    public var statusCode: Int?
    /// The gRPC status, when a gRPC call ended with one.
    public var grpcStatus: GRPCStatusCode?
    /// The transport failure, when no response arrived.
    public var transport: TransportFailure?
    /// The declared condition the caller's code classified the result
    /// into, when that decided.
    public var condition: AttemptCondition?
    /// The server's requested delay, when it sent one. Kept even when the
    /// policy refused to wait that long, so callers can surface it.
    public var retryAfter: Duration?
    /// Extra human context supplied by an adapter (an underlying error's
    /// text). `nil` on the decision hot path so that deciding never allocates.
    public var detail: String?

    public init(
        kind: Kind,
        statusCode: Int? = nil,
        transport: TransportFailure? = nil,
        retryAfter: Duration? = nil,
        detail: String? = nil,
        condition: AttemptCondition? = nil,
        grpcStatus: GRPCStatusCode? = nil
    ) {
        self.kind = kind
        self.statusCode = statusCode
        self.transport = transport
        self.retryAfter = retryAfter
        self.detail = detail
        self.condition = condition
        self.grpcStatus = grpcStatus
    }

    /// A one-line message built on demand, so that constructing an error on
    /// the decision path costs nothing.
    public var message: String {
        var parts: [String] = []
        if let statusCode { parts.append("HTTP \(statusCode)") }
        if let grpcStatus { parts.append("gRPC \(grpcStatus.name)") }
        if let transport { parts.append("transport failure \(transport.rawValue)") }
        if let condition { parts.append("condition \(condition.rawValue)") }
        if let retryAfter { parts.append("server asked to retry after \(retryAfter.formattedForHumans)") }
        if let detail { parts.append(detail) }
        return parts.isEmpty ? kind.rawValue : "\(kind.rawValue): " + parts.joined(separator: ", ")
    }

    public var description: String { message }
}
