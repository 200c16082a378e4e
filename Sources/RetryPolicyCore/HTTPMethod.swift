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

    /// A method already in upper case: the predeclared ones, built where
    /// they are used from a literal, so that a copy of one is a constant
    /// with no reference to count and no lazy global to check.
    @inlinable
    init(uppercase rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
    public static func < (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool { lhs.rawValue < rhs.rawValue }

    @inlinable public static var get: HTTPMethod { HTTPMethod(uppercase: "GET") }
    @inlinable public static var head: HTTPMethod { HTTPMethod(uppercase: "HEAD") }
    @inlinable public static var post: HTTPMethod { HTTPMethod(uppercase: "POST") }
    @inlinable public static var put: HTTPMethod { HTTPMethod(uppercase: "PUT") }
    @inlinable public static var patch: HTTPMethod { HTTPMethod(uppercase: "PATCH") }
    @inlinable public static var delete: HTTPMethod { HTTPMethod(uppercase: "DELETE") }
    @inlinable public static var options: HTTPMethod { HTTPMethod(uppercase: "OPTIONS") }
    @inlinable public static var trace: HTTPMethod { HTTPMethod(uppercase: "TRACE") }
    @inlinable public static var connect: HTTPMethod { HTTPMethod(uppercase: "CONNECT") }

    /// The methods RFC 9110 §9.2.2 defines as idempotent and that are retried
    /// by default.
    public static let defaultRetryable: Set<HTTPMethod> = [.get, .head, .put, .delete, .options]

    /// Every method the standard defines, for exhaustive analyses.
    public static let standard: [HTTPMethod] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, .connect]
}
