import RetryPolicyCore

/// The rule a test case says must decide, written as a tests file's
/// `rule:` takes it: a line (`39`), or the rule's location as `decide`
/// prints it (`policies/tmdb.yaml:39`) and the request timeline prints
/// it (`policies/tmdb.yaml:39:5`), so a location copied from either is
/// accepted back. A file names the policy the rule is in (a parent the
/// policy `extends`, say); it matches a location spelt from another
/// directory when one path ends with the other.
public struct RuleReference: Sendable, Hashable, CustomStringConvertible {
    public var file: String?
    public var line: Int
    public var column: Int?

    public init(file: String? = nil, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// The largest line or column a reference may name.
    static let maximum = 1_000_000

    /// `39`, `FILE:39` or `FILE:39:5`; `nil` for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func number(_ part: Substring) -> Int? {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let digits = part.drop { $0 == "0" }
            guard digits.count <= 7, let value = Int(digits), (1...Self.maximum).contains(value) else { return nil }
            return value
        }
        // A file name is one line (as the schema's pattern has it).
        guard !text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\u{2028}" || $0 == "\u{2029}" }) else { return nil }
        if parts.count == 1, let line = number(parts[0]) {
            self.init(line: line)
            return
        }
        guard parts.count >= 2 else { return nil }
        // FILE:LINE:COLUMN when the last two parts are numbers and a file
        // is left, else FILE:LINE.
        if parts.count >= 3, let line = number(parts[parts.count - 2]), let column = number(parts[parts.count - 1]) {
            let file = parts.dropLast(2).joined(separator: ":")
            if !file.isEmpty {
                self.init(file: file, line: line, column: column)
                return
            }
        }
        guard let line = number(parts[parts.count - 1]) else { return nil }
        let file = parts.dropLast().joined(separator: ":")
        guard !file.isEmpty else { return nil }
        self.init(file: file, line: line)
    }

    /// Whether the rule at `location` is the one referred to.
    public func matches(_ location: SourceLocation?) -> Bool {
        guard let location, location.line == line else { return false }
        if let column, column != location.column { return false }
        if let file {
            return file == location.file || location.file.hasSuffix("/" + file) || file.hasSuffix("/" + location.file)
        }
        return true
    }

    /// As written: `line 39`, `policies/tmdb.yaml:39`.
    public var description: String {
        guard let file else { return "line \(line)" }
        return "\(file):\(line)" + (column.map { ":\($0)" } ?? "")
    }
}
