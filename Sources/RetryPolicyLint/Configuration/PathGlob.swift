/// A path pattern of `.retry-policy.yaml`'s `include:` and `exclude:`,
/// matched against a path relative to the settings file's directory:
/// `**` (a whole component) is any number of directories, `*` any run of
/// characters within a component (`**` inside a name is the same), `?`
/// one character. A pattern also
/// matches everything under a directory it matches, so `vendor` and
/// `vendor/**` say the same.
///
/// Matching is a table over components and characters, so its time is
/// bounded by the lengths of the pattern and the path whatever they hold.
public struct PathGlob: Hashable, Sendable, CustomStringConvertible {
    enum Component: Hashable, Sendable {
        case anyDepth
        case name([Character])
    }

    public let description: String
    let components: [Component]

    /// The longest pattern accepted, in characters.
    public static let maximumLength = 1024

    /// Why a pattern cannot be used.
    public struct Problem: Error, Sendable, Hashable {
        public var message: String
        public var suggestion: String?
    }

    public init(_ pattern: String) throws(Problem) {
        guard !pattern.isEmpty else { throw Problem(message: "an empty pattern matches nothing", suggestion: "remove it") }
        guard pattern.count <= Self.maximumLength else {
            throw Problem(message: "a pattern longer than \(Self.maximumLength) characters", suggestion: nil)
        }
        guard !pattern.hasPrefix("/") else {
            throw Problem(message: "'\(pattern)' is absolute; patterns are relative to the settings file's directory",
                          suggestion: "write it without the leading '/'")
        }
        if let special = pattern.first(where: { "[]{}\\!".contains($0) }) {
            throw Problem(message: "'\(special)' is not supported in a pattern (only *, ** and ?)",
                          suggestion: "list each pattern on its own line")
        }
        var parsed: [Component] = []
        for part in pattern.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                throw Problem(message: "'..' in '\(pattern)' leaves the settings file's directory", suggestion: nil)
            }
            if part == "**" {
                if parsed.last != .anyDepth { parsed.append(.anyDepth) }
            } else {
                parsed.append(.name(Array(part)))
            }
        }
        guard !parsed.isEmpty else { throw Problem(message: "'\(pattern)' names no path", suggestion: nil) }
        self.description = pattern
        self.components = parsed
    }

    /// Whether `path` (relative, `/`-separated) or a directory above it
    /// matches.
    public func matches(_ path: String) -> Bool {
        let names = path.split(separator: "/").map { Array($0) }
        // reach[i][j]: the first i pattern components match the first j names.
        var reach = [[Bool]](repeating: [Bool](repeating: false, count: names.count + 1), count: components.count + 1)
        reach[0][0] = true
        for i in 0..<components.count {
            for j in 0...names.count where reach[i][j] {
                switch components[i] {
                case .anyDepth:
                    for k in j...names.count { reach[i + 1][k] = true }
                case .name(let pattern):
                    if j < names.count, Self.matches(pattern, names[j]) { reach[i + 1][j + 1] = true }
                }
            }
        }
        return reach[components.count].contains(true)
    }

    /// `*` and `?` within one component.
    static func matches(_ pattern: [Character], _ name: [Character]) -> Bool {
        var reach = [Bool](repeating: false, count: name.count + 1)
        reach[0] = true
        for character in pattern {
            var next = [Bool](repeating: false, count: name.count + 1)
            for j in 0...name.count where reach[j] {
                switch character {
                case "*": for k in j...name.count { next[k] = true }
                case "?": if j < name.count { next[j + 1] = true }
                default: if j < name.count, name[j] == character { next[j + 1] = true }
                }
            }
            reach = next
        }
        return reach[name.count]
    }
}
