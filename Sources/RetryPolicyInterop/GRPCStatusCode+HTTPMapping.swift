import RetryPolicyCore

/// The interop name of the core's gRPC status codes.
public typealias GRPCStatus = GRPCStatusCode

/// The standard mapping between gRPC status codes and HTTP statuses ("HTTP
/// to gRPC Status Code Mapping", grpc/grpc doc/http-grpc-status-mapping.md),
/// extended to transport failures as gRPC clients report them: what a
/// policy written with HTTP rules only approximates gRPC with.
extension GRPCStatusCode {
    /// The code spelt exactly `name`, as gRPC's service config requires
    /// (`GRPCStatusCode.init(parsing:)` also takes other letter cases and
    /// numbers).
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
    package static func forHTTP(_ status: Int) -> GRPCStatusCode {
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
    package static func forTransport(_ failure: TransportFailure) -> GRPCStatusCode? {
        allCases.first { $0.transports.contains(failure) }
    }
}
