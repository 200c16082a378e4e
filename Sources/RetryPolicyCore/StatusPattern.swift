/// A set of HTTP status codes a rule matches: `429`, `500-504`, `5xx`.
public enum StatusPattern: Hashable, Sendable, CustomStringConvertible {
    /// One code.
    case code(Int)
    /// An inclusive range such as `500-504` or a class such as `5xx`
    /// (which is `500-599`).
    case range(ClosedRange<Int>)

    /// The status codes HTTP defines (RFC 9110 §15).
    public static let validCodes: ClosedRange<Int> = 100...599

    /// A status class: `5` gives `5xx`.
    public static func statusClass(_ leadingDigit: Int) -> StatusPattern {
        .range((leadingDigit * 100)...(leadingDigit * 100 + 99))
    }

    public func contains(_ status: Int) -> Bool {
        switch self {
        case .code(let code): code == status
        case .range(let range): range.contains(status)
        }
    }

    public var codes: ClosedRange<Int> {
        switch self {
        case .code(let code): code...code
        case .range(let range): range
        }
    }

    public var description: String {
        switch self {
        case .code(let code): "\(code)"
        case .range(let range):
            if range.lowerBound % 100 == 0 && range.upperBound == range.lowerBound + 99 {
                "\(range.lowerBound / 100)xx"
            } else {
                "\(range.lowerBound)-\(range.upperBound)"
            }
        }
    }
}
