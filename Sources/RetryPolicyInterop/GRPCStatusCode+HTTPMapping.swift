import RetryPolicyCore

/// gRPC status codes and the standard mapping between them and HTTP
/// statuses ("HTTP to gRPC Status Code Mapping",
/// grpc/grpc doc/http-grpc-status-mapping.md), extended to transport
/// failures as gRPC clients report them.
public enum GRPCStatus: Int, CaseIterable, Sendable, CustomStringConvertible {
    case ok = 0, cancelled, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists,
        permissionDenied, resourceExhausted, failedPrecondition, aborted, outOfRange, unimplemented,
        `internal`, unavailable, dataLoss, unauthenticated

    public var name: String {
        switch self {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internal: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }

    public var description: String { name }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }

    /// Envoy's `retry_on` spelling of the gRPC conditions it knows.
    package var envoyCondition: String? {
        switch self {
        case .cancelled: "cancelled"
        case .deadlineExceeded: "deadline-exceeded"
        case .internal: "internal"
        case .resourceExhausted: "resource-exhausted"
        case .unavailable: "unavailable"
        default: nil
        }
    }

    /// The HTTP statuses the standard mapping turns into this code.
    package var httpStatuses: Set<Int> {
        switch self {
        case .internal: [400]
        case .unauthenticated: [401]
        case .permissionDenied: [403]
        case .unimplemented: [404]
        case .unavailable: [429, 502, 503, 504]
        case .unknown: Set(StatusPattern.validCodes).subtracting(Self.explicitlyMapped).subtracting(200...299)
        default: []
        }
    }

    static let explicitlyMapped: Set<Int> = [400, 401, 403, 404, 429, 502, 503, 504]

    /// The transport failures a gRPC client reports with this code.
    public var transports: Set<TransportFailure> {
        switch self {
        case .unavailable: [.connectionRefused, .connectionLost, .offline, .dns, .tls]
        case .deadlineExceeded: [.timeout]
        case .cancelled: [.cancelled]
        case .internal: [.decoding]
        case .unknown: [.unknown]
        default: []
        }
    }

    /// The code the standard mapping gives an HTTP status.
    package static func forHTTP(_ status: Int) -> GRPCStatus {
        switch status {
        case 400: .internal
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .unimplemented
        case 429, 502, 503, 504: .unavailable
        default: .unknown
        }
    }

    /// The code a transport failure is reported with, if gRPC has one.
    package static func forTransport(_ failure: TransportFailure) -> GRPCStatus? {
        allCases.first { $0.transports.contains(failure) }
    }
}
