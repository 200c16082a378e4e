/// An HTTP request method.
///
/// String-backed rather than an enum so that extension methods (`PROPFIND`,
/// `QUERY`) are representable; the well-known ones are predeclared.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    /// Methods are case-sensitive tokens (RFC 9110 §9.1); the standard ones
    /// are upper case, so lower-case input is normalised for convenience.
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public var description: String { rawValue }
    public static func < (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool { lhs.rawValue < rhs.rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")
    public static let trace = HTTPMethod(rawValue: "TRACE")
    public static let connect = HTTPMethod(rawValue: "CONNECT")

    /// The methods RFC 9110 §9.2.2 defines as idempotent and that are retried
    /// by default.
    public static let defaultRetryable: Set<HTTPMethod> = [.get, .head, .put, .delete, .options]

    /// Every method the standard defines, for exhaustive analyses.
    public static let standard: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]
}
