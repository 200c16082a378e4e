import RetryPolicyCore

/// Typed, located access to a YAML tree that records a diagnostic for
/// every problem instead of stopping at the first, so that a file's whole
/// list of mistakes comes out of one run.
///
/// Every message names the key path, then says what was expected and what
/// was found: `backoff.initial: expected a duration such as 250ms, 10s or
/// 1m30s, found the integer 10`.
///
/// The one reader of the package's YAML documents: policy files here, policy
/// test files and `.retry-policy.yaml` settings in `RetryPolicyLint`, which
/// read their mappings, lists and values through the same methods (so a
/// test file's `status: "503"` gets the same message and suggestion as a
/// policy's) and report only their own checks through
/// ``report(_:at:_:suggestion:)``. Every diagnostic carries a
/// ``LoaderRule``, never a raw id.
package struct FieldReader {
    package var diagnostics: [Diagnostic] = []
    /// Where every key read so far is written, by key path.
    var keyLocations: [String: SourceLocation] = [:]
    /// The numbers and durations read so far, by key path: where each is
    /// written and what it is, so that a range the validator finds broken
    /// is reported at the value, as the file states it.
    var values: [String: (location: SourceLocation, found: String)] = [:]
    /// Problems counted but not described once ``maximum`` is reached, so a
    /// hostile file with 50,000 bad keys costs a count, not 50,000 messages.
    package var suppressed = 0
    /// The first problem not described, to locate the "more problems" line.
    var firstSuppressed: Diagnostic?
    static let limit = 200
    /// How many problems are described; ``limit`` for policy files.
    let maximum: Int

    package init(maximum: Int = FieldReader.limit) {
        self.maximum = maximum
    }

    var isSaturated: Bool { diagnostics.count >= maximum }

    package mutating func report(_ rule: LoaderRule, at location: SourceLocation, _ message: @autoclosure () -> String, suggestion: @autoclosure () -> String? = nil) {
        if isSaturated {
            if firstSuppressed == nil { firstSuppressed = Diagnostic(rule, at: location, message()) }
            suppressed += 1
            return
        }
        diagnostics.append(Diagnostic(rule, at: location, message(), suggestion: suggestion()))
    }

    /// Whether a problem has been counted without being described.
    package var hasProblems: Bool { !diagnostics.isEmpty || suppressed > 0 }

    /// `keyPath: expected X, found Y`.
    package mutating func expected(
        _ what: @autoclosure () -> String, for keyPath: @autoclosure () -> String, found node: YAMLNode,
        rule: LoaderRule = .wrongType, suggestion: @autoclosure () -> String? = nil
    ) {
        report(rule, at: node.location, "\(Self.prefix(keyPath()))expected \(what()), found \(node.kindDescription)", suggestion: suggestion())
    }

    package static func prefix(_ keyPath: String) -> String { keyPath.isEmpty ? "" : "\(keyPath): " }

    package static func join(_ keyPath: String, _ key: String) -> String { keyPath.isEmpty ? key : "\(keyPath).\(key)" }

    // MARK: Collections

    /// The entries of a mapping, after reporting unknown and missing keys.
    package mutating func fields(
        _ node: YAMLNode, at keyPath: String, allowed: [String], required: [String] = [],
        what: String = "a mapping"
    ) -> Fields? {
        guard case .mapping(let entries, let location) = node else {
            expected(what, for: keyPath, found: node)
            return nil
        }
        if keyLocations.isEmpty { keyLocations.reserveCapacity(64) }
        var keys: [String] = []
        keys.reserveCapacity(entries.count)
        for entry in entries {
            keys.append(entry.key.value)
            if allowed.contains(entry.key.value) {
                keyLocations[Self.join(keyPath, entry.key.value)] = entry.key.location
            } else {
                let shown = YAMLScalar.abbreviated(entry.key.value)
                let place = keyPath.isEmpty ? "" : " in '\(keyPath)'"
                report(
                    .unknownKey, at: entry.key.location,
                    "unknown key '\(shown)'\(place); expected one of: \(allowed.joined(separator: ", "))",
                    suggestion: Suggestion.didYouMean(entry.key.value, among: allowed))
            }
        }
        let fields = Fields(entries: Fields.Entries(all: entries, keys: keys), location: location, keyPath: keyPath)
        for key in required where fields[key] == nil {
            let place = keyPath.isEmpty ? "at the top level" : "in '\(keyPath)'"
            report(.missingKey, at: location, "missing required key '\(key)' \(place)")
        }
        return fields
    }

    /// The items of a list.
    package mutating func list(
        _ node: YAMLNode, at keyPath: @autoclosure () -> String, what: @autoclosure () -> String = "a list", nonEmpty: Bool = false
    ) -> [YAMLNode]? {
        guard case .sequence(let items, _) = node else {
            expected(what(), for: keyPath(), found: node)
            return nil
        }
        if nonEmpty && items.isEmpty {
            expected("\(what()) with at least one item", for: keyPath(), found: node, rule: .outOfRange)
            return nil
        }
        return items
    }

    /// A scalar or a list of scalars, as `status: 429` or
    /// `status: [429, 503]`.
    mutating func oneOrMany(_ node: YAMLNode, at keyPath: @autoclosure () -> String, what: @autoclosure () -> String) -> [YAMLNode]? {
        switch node {
        case .scalar: return [node]
        case .sequence(let items, _):
            if items.isEmpty {
                expected("\(what()) or a list of at least one", for: keyPath(), found: node, rule: .outOfRange)
                return nil
            }
            return items
        case .mapping:
            expected("\(what()) or a list of them", for: keyPath(), found: node)
            return nil
        }
    }

    // MARK: Scalars

    package mutating func string(
        _ node: YAMLNode, at keyPath: @autoclosure () -> String, what: @autoclosure () -> String = "a string"
    ) -> String? {
        if case .scalar(let scalar) = node, case .string(let text) = scalar.resolved { return text }
        expected(what(), for: keyPath(), found: node)
        return nil
    }

    /// Any scalar's text as written (`404` reads as "404"), for free text
    /// such as a test case's name or a header value.
    package mutating func text(
        _ node: YAMLNode, at keyPath: @autoclosure () -> String, what: @autoclosure () -> String = "a string"
    ) -> String? {
        if case .scalar(let scalar) = node { return scalar.value }
        expected(what(), for: keyPath(), found: node)
        return nil
    }

    /// A string of `[A-Za-z0-9._-]+`, for names that appear in messages
    /// and metrics.
    mutating func name(_ node: YAMLNode, at keyPath: @autoclosure () -> String) -> String? {
        guard let text = string(node, at: keyPath(), what: "a name of letters, digits, '.', '_' or '-'") else { return nil }
        if !PolicyBounds.isName(text) {
            expected("a name of 1 to 128 letters, digits, '.', '_' or '-'", for: keyPath(), found: node, rule: .invalidValue)
            return nil
        }
        return text
    }

    /// A lower-case identifier (`[a-z][a-z0-9_]*`), for error kinds and
    /// platforms.
    mutating func identifier(
        _ text: String, at location: SourceLocation, keyPath: @autoclosure () -> String, what: @autoclosure () -> String
    ) -> Bool {
        let valid = PolicyBounds.isIdentifier(text)
        if !valid {
            report(
                .invalidValue, at: location,
                "\(Self.prefix(keyPath()))expected \(what()) in snake_case (a-z, 0-9, _), found '\(YAMLScalar.abbreviated(text))'")
        }
        return valid
    }

    package mutating func bool(_ node: YAMLNode, at keyPath: @autoclosure () -> String) -> Bool? {
        if case .scalar(let scalar) = node, case .bool(let value) = scalar.resolved { return value }
        var suggestion: String?
        if case .scalar(let scalar) = node, !scalar.isQuoted, let meaning = Self.yaml11Booleans[scalar.value.lowercased()] {
            suggestion = "write \(meaning); since YAML 1.2 '\(scalar.value)' is a string"
        }
        expected("true or false", for: keyPath(), found: node, suggestion: suggestion)
        return nil
    }

    /// Words YAML 1.1 read as booleans, which YAML 1.2 (and this loader)
    /// reads as strings.
    static let yaml11Booleans = ["yes": "true", "no": "false", "on": "true", "off": "false", "y": "true", "n": "false"]

    package mutating func integer(_ node: YAMLNode, at keyPath: @autoclosure () -> String, in range: ClosedRange<Int>) -> Int? {
        if case .scalar(let scalar) = node, case .integer(let value) = scalar.resolved, range.contains(value) { return value }
        let what = "an integer from \(range.lowerBound) to \(range.upperBound)"
        guard case .scalar(let scalar) = node else {
            expected(what, for: keyPath(), found: node)
            return nil
        }
        switch scalar.resolved {
        case .integer, .oversizedInteger:
            expected(what, for: keyPath(), found: node, rule: .outOfRange)
        case .string(let text) where scalar.isQuoted && CoreSchema.integer(text) != nil:
            expected(what, for: keyPath(), found: node, suggestion: "write \(YAMLScalar.abbreviated(text)) without quotes")
        default:
            expected(what, for: keyPath(), found: node)
        }
        return nil
    }

    /// An integer of any size (a too large one saturates), for a key
    /// whose range the validator checks; `range` says in a type error
    /// what is expected.
    mutating func integer(_ node: YAMLNode, at keyPath: String, describing range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node else { return integer(node, at: keyPath, in: range) }
        let value: Int
        switch scalar.resolved {
        case .integer(let int): value = int
        case .oversizedInteger: value = scalar.value.hasPrefix("-") ? .min : .max
        default: return integer(node, at: keyPath, in: range)  // reports the type
        }
        values[keyPath] = (node.location, scalar.kindDescription)
        return value
    }

    /// A number of any size, for a key whose range the validator checks;
    /// `range` says in a type error what is expected.
    mutating func number(_ node: YAMLNode, at keyPath: String, describing range: ClosedRange<Double>) -> Double? {
        guard case .scalar(let scalar) = node else { return number(node, at: keyPath, in: range) }
        let value: Double
        switch scalar.resolved {
        case .integer(let int): value = Double(int)
        case .float(let float): value = float
        case .oversizedInteger: value = scalar.value.hasPrefix("-") ? -.infinity : .infinity
        default: return number(node, at: keyPath, in: range)  // reports the type
        }
        values[keyPath] = (node.location, scalar.kindDescription)
        return value
    }

    package mutating func number(_ node: YAMLNode, at keyPath: @autoclosure () -> String, in range: ClosedRange<Double>) -> Double? {
        func what() -> String { "a number from \(NumberText.number(range.lowerBound)) to \(NumberText.number(range.upperBound))" }
        guard case .scalar(let scalar) = node else {
            expected(what(), for: keyPath(), found: node)
            return nil
        }
        let value: Double
        switch scalar.resolved {
        case .integer(let int): value = Double(int)
        case .float(let float): value = float
        case .oversizedInteger: value = .infinity
        default:
            expected(what(), for: keyPath(), found: node)
            return nil
        }
        if value.isFinite && range.contains(value) { return value }
        expected(what(), for: keyPath(), found: node, rule: .outOfRange)
        return nil
    }

    /// A duration in policy syntax (`250ms`, `10s`, `1m30s`), parsed by
    /// ``DurationText`` so that the loader and every message agree.
    package mutating func duration(_ node: YAMLNode, at keyPath: @autoclosure () -> String, positive: Bool = false) -> Duration? {
        let what = "a duration such as 250ms, 10s or 1m30s"
        guard case .scalar(let scalar) = node else {
            expected(what, for: keyPath(), found: node)
            return nil
        }
        switch scalar.resolved {
        case .string(let text):
            switch DurationText.parse(text) {
            case .success(let duration):
                if positive && duration <= .zero {
                    expected("a duration above 0s", for: keyPath(), found: node, rule: .outOfRange)
                    return nil
                }
                values[keyPath()] = (node.location, scalar.kindDescription)
                return duration
            case .failure(let error):
                report(
                    .invalidDuration, at: node.location,
                    "\(Self.prefix(keyPath()))expected \(what), found '\(YAMLScalar.abbreviated(text))': \(error)")
                return nil
            }
        case .integer(let value):
            expected(what, for: keyPath(), found: node, rule: .invalidDuration, suggestion: "write \(value)s or \(value)ms")
        case .float(let value) where value.isFinite:
            expected(what, for: keyPath(), found: node, rule: .invalidDuration, suggestion: "write \(scalar.value)s")
        default:
            expected(what, for: keyPath(), found: node, rule: .invalidDuration)
        }
        return nil
    }

    /// One of an enumeration's raw values.
    package mutating func choice<E: RawRepresentable & CaseIterable>(
        _ node: YAMLNode, at keyPath: @autoclosure () -> String, of type: E.Type
    ) -> E? where E.RawValue == String {
        choice(node, at: keyPath(), among: Array(E.allCases))
    }

    /// One of `values`, by raw value (a subset of an enumeration).
    package mutating func choice<E: RawRepresentable>(
        _ node: YAMLNode, at keyPath: @autoclosure () -> String, among values: [E]
    ) -> E? where E.RawValue == String {
        choice(node, at: keyPath(), among: values.map(\.rawValue)).flatMap { text in values.first { $0.rawValue == text } }
    }

    /// One of the words `allowed`.
    package mutating func choice(_ node: YAMLNode, at keyPath: @autoclosure () -> String, among allowed: [String]) -> String? {
        guard case .scalar(let scalar) = node, case .string(let text) = scalar.resolved else {
            expected(Self.alternatives(allowed), for: keyPath(), found: node)
            return nil
        }
        if allowed.contains(text) { return text }
        expected(Self.alternatives(allowed), for: keyPath(), found: node, rule: .invalidValue, suggestion: Suggestion.didYouMean(text, among: allowed))
        return nil
    }

    /// `a, b or c`.
    package static func alternatives(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }
}

/// A mapping's known entries, by key.
package struct Fields {
    /// The mapping's entries, found by scanning their keys: a policy's
    /// mappings hold a handful of keys, so a scan of the key strings costs
    /// less than building an index (and than scanning the entries, each
    /// of which would be copied), and the keys are unique (the parser
    /// refuses duplicates). Unknown keys (already reported) are never
    /// asked for.
    package struct Entries {
        package let all: [(key: YAMLScalar, value: YAMLNode)]
        /// `all`'s keys, in the same order.
        let keys: [String]

        func index(of key: String) -> Int? { keys.firstIndex(of: key) }

        package subscript(key: String) -> (key: YAMLScalar, value: YAMLNode)? { index(of: key).map { all[$0] } }
    }

    package let entries: Entries
    package let location: SourceLocation
    package let keyPath: String

    package subscript(key: String) -> YAMLNode? { entries.index(of: key).map { entries.all[$0].value } }

    /// The key path of a child key, for messages.
    package func path(_ key: String) -> String { FieldReader.join(keyPath, key) }
}
