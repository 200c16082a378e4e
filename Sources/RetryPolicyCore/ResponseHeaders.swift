/// The response headers a decision may consult.
///
/// A plain list, looked up case-insensitively without allocating. Adapters
/// need only pass the headers a policy names (see
/// `RetryDecider/consultedHeaderNames`), which keeps the common path free
/// of copies.
public struct ResponseHeaders: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public var fields: [Field]

    public struct Field: Hashable, Sendable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    @inlinable
    public init(_ fields: [Field] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// No headers; does not allocate.
    @inlinable
    public static var none: ResponseHeaders { ResponseHeaders() }

    /// The first value of the header `name`, compared case-insensitively as
    /// RFC 9110 requires.
    public subscript(name: String) -> String? {
        for field in fields where Self.equalIgnoringASCIICase(field.name, name) { return field.value }
        return nil
    }

    public mutating func append(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    @usableFromInline
    static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a == b { continue }
                let lowerA = (a >= 65 && a <= 90) ? a | 0x20 : a
                let lowerB = (b >= 65 && b <= 90) ? b | 0x20 : b
                if lowerA != lowerB { return false }
            default: return false
            }
        }
    }
}
