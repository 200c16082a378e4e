/// A notification on the channel a store shares cooldowns and breaker
/// changes through, read from text any peer could have sent: every field
/// is checked, and what a value may do is bounded by the receiving
/// policy (``SharedCooldown/limited(to:at:)``,
/// ``SharedBreakerChange/limited(by:at:)``), never by the sender.
///
/// The forms (fields separated by one space; the key is the rest of the
/// payload and may itself hold spaces):
/// - `UNTIL_NS STATUS KIND KEY`: a cooldown until `UNTIL_NS` (nanoseconds
///   since 1970), for the HTTP status `STATUS` (`-` for none) and the
///   error kind `KIND`;
/// - `breaker OPENING STATE UNTIL_NS OPENINGS KEY`: the breaker of `KEY`,
///   fleet opening number `OPENING`, `open` or `closed`, its break's end,
///   and how many times in a row it opened;
/// - `probe ...`: a store's test of its own connection.
///
/// Public because it is the wire format of the PostgreSQL store: another
/// store, or a tool watching the channel, reads it the same way.
public enum SharedStateNotification: Hashable, Sendable {
    case cooldown(SharedCooldown)
    case breaker(SharedBreakerChange)
    /// A store's test notification, meant for that store only.
    case probe

    /// PostgreSQL's own limit on a `NOTIFY` payload; anything longer
    /// cannot have come through the channel.
    public static let maximumBytes = 8000
    /// The longest error kind read (a policy's kinds are short snake_case
    /// names).
    public static let maximumKindBytes = 128
    package static let breakerPrefix = "breaker "
    package static let probePrefix = "probe "

    /// Why a payload was refused.
    public enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        case tooLong(bytes: Int)
        case fieldCount(expected: Int, found: Int)
        case notANumber(field: String)
        case outOfRange(field: String, expected: String)
        case badState
        case badKind
        case emptyKey

        public var description: String {
            switch self {
            case .tooLong(let bytes): "\(bytes) bytes, more than a notification can hold (\(SharedStateNotification.maximumBytes))"
            case .fieldCount(let expected, let found): "expected \(expected) fields separated by spaces, found \(found)"
            case .notANumber(let field): "\(field) is not a whole number"
            case .outOfRange(let field, let expected): "\(field) is out of range (expected \(expected))"
            case .badState: "the breaker state must be open or closed"
            case .badKind: "the error kind must be a snake_case name (a-z, 0-9, _) of at most \(SharedStateNotification.maximumKindBytes) characters"
            case .emptyKey: "the key is empty"
            }
        }
    }

    /// Reads `payload`; never traps, and costs time linear in its length.
    public static func parse(_ payload: String) -> Result<SharedStateNotification, Problem> {
        let bytes = payload.utf8.count
        guard bytes <= maximumBytes else { return .failure(.tooLong(bytes: bytes)) }
        if payload.hasPrefix(probePrefix) { return .success(.probe) }
        if payload.hasPrefix(breakerPrefix) {
            return parseBreaker(payload.dropFirst(breakerPrefix.count)).map { .breaker($0) }
        }
        return parseCooldown(payload[...]).map { .cooldown($0) }
    }

    private static func parseCooldown(_ text: Substring) -> Result<SharedCooldown, Problem> {
        let fields = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4 else { return .failure(.fieldCount(expected: 4, found: fields.count)) }
        guard let until = wholeNumber(fields[0], as: Int64.self) else { return .failure(.notANumber(field: "UNTIL_NS")) }
        var status: Int?
        if fields[1] != "-" {
            guard let code = wholeNumber(fields[1], as: Int.self) else { return .failure(.notANumber(field: "STATUS")) }
            status = code
        }
        return cooldown(key: String(fields[3]), until: until, kind: fields[2], status: status)
    }

    /// A cooldown's fields, from a notification or a row, checked: the
    /// status an HTTP status, the kind a snake_case name, the key not
    /// empty.
    package static func cooldown(key: String, until: Int64, kind: Substring, status: Int?) -> Result<SharedCooldown, Problem> {
        if let status, !(100...599).contains(status) { return .failure(.outOfRange(field: "STATUS", expected: "100...599 or -")) }
        guard isKind(kind) else { return .failure(.badKind) }
        guard !key.isEmpty else { return .failure(.emptyKey) }
        return .success(
            SharedCooldown(
                key: key, until: Timestamp(nanosecondsSince1970: until), kind: SDKError.Kind(rawValue: String(kind)),
                status: status))
    }

    private static func parseBreaker(_ text: Substring) -> Result<SharedBreakerChange, Problem> {
        let fields = text.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
        guard fields.count == 5 else { return .failure(.fieldCount(expected: 6, found: fields.count + 1)) }
        guard let opening = wholeNumber(fields[0], as: Int64.self) else { return .failure(.notANumber(field: "OPENING")) }
        guard let until = wholeNumber(fields[2], as: Int64.self) else { return .failure(.notANumber(field: "UNTIL_NS")) }
        guard let openings = wholeNumber(fields[3], as: Int.self) else { return .failure(.notANumber(field: "OPENINGS")) }
        return breaker(key: String(fields[4]), opening: opening, state: fields[1], until: until, openings: openings)
    }

    /// A breaker's fields, from a notification or a row, checked: the
    /// numbers not negative, the state `open` or `closed`, the key not
    /// empty.
    package static func breaker(key: String, opening: Int64, state: Substring, until: Int64, openings: Int)
        -> Result<SharedBreakerChange, Problem>
    {
        guard opening >= 0 else { return .failure(.outOfRange(field: "OPENING", expected: "0 or more")) }
        guard state == "open" || state == "closed" else { return .failure(.badState) }
        guard openings >= 0 else { return .failure(.outOfRange(field: "OPENINGS", expected: "0 or more")) }
        guard !key.isEmpty else { return .failure(.emptyKey) }
        return .success(
            SharedBreakerChange(
                key: key, opening: opening, isOpen: state == "open", until: Timestamp(nanosecondsSince1970: until),
                openings: openings))
    }

    /// An optional `-` and 1 to 19 ASCII digits (no `+`, no spaces) that
    /// fit `T`; the length check keeps the conversion cheap.
    private static func wholeNumber<T: FixedWidthInteger>(_ text: Substring, as: T.Type) -> T? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.count <= 19,
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return T(text)
    }

    /// `[a-z][a-z0-9_]*`, as a policy names its error kinds.
    private static func isKind(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"),
            text.utf8.count <= maximumKindBytes
        else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "_")
        }
    }
}

/// A cooldown another process recorded, as its notification or row says.
public struct SharedCooldown: Hashable, Sendable {
    public var key: String
    public var until: Timestamp
    public var kind: SDKError.Kind
    public var status: Int?

    package init(key: String, until: Timestamp, kind: SDKError.Kind, status: Int?) {
        self.key = key
        self.until = until
        self.kind = kind
        self.status = status
    }

    /// The longest cooldown a policy takes from elsewhere: its
    /// `retry_after` cap, or the ceiling of every duration when it has
    /// none.
    package static func longest(for policy: Policy) -> Duration { policy.retryAfter.cap ?? Backoff.ceiling }

    /// The cooldown ending at most `longest` after `now`.
    public func limited(to longest: Duration, at now: Timestamp) -> SharedCooldown {
        var limited = self
        limited.until = min(until, now + longest)
        return limited
    }
}

/// A change of a shared circuit breaker, as another process's
/// notification or the breaker's row says.
public struct SharedBreakerChange: Hashable, Sendable {
    public var key: String
    /// The fleet's opening number (grows with each opening and each new
    /// round of probes).
    public var opening: Int64
    package var isOpen: Bool
    public var until: Timestamp
    /// Openings in a row since the breaker last closed.
    public var openings: Int

    package init(key: String, opening: Int64, isOpen: Bool, until: Timestamp, openings: Int) {
        self.key = key
        self.opening = opening
        self.isOpen = isOpen
        self.until = until
        self.openings = openings
    }

    /// The change within what `configuration` itself would do: the break
    /// ends at most its longest break after `now`, the count of openings
    /// is between 0 and ``CircuitBreakerConfiguration/maximumOpenings``.
    public func limited(by configuration: CircuitBreakerConfiguration, at now: Timestamp) -> SharedBreakerChange {
        var limited = self
        limited.until = min(until, now + configuration.longestBreak)
        limited.openings = min(max(openings, 0), CircuitBreakerConfiguration.maximumOpenings)
        return limited
    }
}
