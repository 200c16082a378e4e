/// An outcome class a policy declares for results that neither a status
/// nor a transport failure describes: a 200 whose body is a CDN's error
/// page, a reply that parsed but said "try later".
///
/// Code decides which results fall in a condition (the executor's
/// `classify` hook); the policy file decides what a condition means, in
/// rules like any other input:
///
/// ```yaml
/// conditions: [malformed_body]
/// rules:
///   - {condition: malformed_body, error: status_5xx, action: retry}
/// ```
///
/// Keeping the decision in the file keeps it visible to lint, `table`,
/// `diff` and `simulate`, which a closure deciding retry or stop is not.
public struct AttemptCondition: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
