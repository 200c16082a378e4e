/// A gRPC status code (grpc/grpc doc/statuscodes.md): what a gRPC call
/// ended with, carried in the `grpc-status` trailer.
///
/// Rules match these directly (`grpc: [UNAVAILABLE]`) rather than through
/// an HTTP status: a gRPC call's HTTP/2 response is a 200 whatever its
/// gRPC status, and the standard HTTP mapping is many-to-one, so an HTTP
/// stand-in cannot say which gRPC code a rule means.
public enum GRPCStatusCode: Int, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case ok = 0
    case cancelled = 1
    case unknown = 2
    case invalidArgument = 3
    case deadlineExceeded = 4
    case notFound = 5
    case alreadyExists = 6
    case permissionDenied = 7
    case resourceExhausted = 8
    case failedPrecondition = 9
    case aborted = 10
    case outOfRange = 11
    case unimplemented = 12
    case `internal` = 13
    case unavailable = 14
    case dataLoss = 15
    case unauthenticated = 16

    /// The metadata key a server sets to direct a client's next retry
    /// (gRFC A6, "Pushback"): whole milliseconds to wait, or a negative or
    /// unparseable value meaning "do not retry".
    public static let pushbackKey = "grpc-retry-pushback-ms"

    /// The canonical upper-case name, as gRPC's service config and
    /// documentation spell it: `UNAVAILABLE`, `RESOURCE_EXHAUSTED`.
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

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The code named `text`: its canonical name in any letter case
    /// (`UNAVAILABLE`, `unavailable`) or its decimal number (`14`); `nil`
    /// for anything else, surrounding whitespace and signs included.
    public init?(parsing text: String) {
        if let first = text.utf8.first, first >= 48 && first <= 57 {
            guard let number = Int(text, radix: 10), let code = GRPCStatusCode(rawValue: number) else { return nil }
            self = code
            return
        }
        for code in Self.allCases where ResponseHeaders.equalIgnoringASCIICase(code.name, text) {
            self = code
            return
        }
        return nil
    }
}
