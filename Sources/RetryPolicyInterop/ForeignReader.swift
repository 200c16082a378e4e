import RetryPolicyCore
import RetryPolicyYAML

/// Reads fields of a foreign YAML or JSON document, collecting located
/// errors so that one run reports every problem.
struct ForeignReader {
    var diagnostics: [Diagnostic] = []
    let file: String

    mutating func error(_ rule: InteropRule, _ node: YAMLNode, _ message: String) {
        diagnostics.append(Diagnostic(rule, at: node.location, message))
    }

    mutating func error(_ rule: InteropRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        diagnostics.append(Diagnostic(rule, at: location, message, suggestion: suggestion))
    }

    /// The value under `key` of a mapping, matched exactly or, when
    /// `relaxed`, ignoring case and dashes (Spring's relaxed binding).
    static func value(_ node: YAMLNode, _ key: String, relaxed: Bool = false) -> YAMLNode? {
        guard case .mapping(let entries, _) = node else { return nil }
        if let exact = entries.first(where: { $0.key.value == key }) { return exact.value }
        guard relaxed else { return nil }
        let wanted = normalized(key)
        return entries.first { normalized($0.key.value) == wanted }?.value
    }

    /// A protobuf field of a mapping, written with its proto name
    /// (`retry_policy`) or proto3 JSON's lowerCamelCase (`retryPolicy`):
    /// Envoy's parser takes both.
    static func field(_ node: YAMLNode, _ protoName: String) -> YAMLNode? {
        value(node, protoName) ?? value(node, camelCase(protoName))
    }

    static func fieldKeyLocation(_ node: YAMLNode, _ protoName: String) -> SourceLocation? {
        keyLocation(node, protoName) ?? keyLocation(node, camelCase(protoName))
    }

    /// `retry_back_off` as proto3 JSON writes it: `retryBackOff`.
    static func camelCase(_ protoName: String) -> String {
        var result = ""
        var upper = false
        for character in protoName {
            if character == "_" {
                upper = true
            } else {
                result.append(upper ? Character(character.uppercased()) : character)
                upper = false
            }
        }
        return result
    }

    /// A mapping's keys as protobuf field names (camelCase ones turned
    /// back to snake_case), with their locations.
    static func protoKeys(_ node: YAMLNode) -> [(name: String, location: SourceLocation)] {
        entries(node).map { entry in
            var name = ""
            for character in entry.key.value {
                if character.isUppercase {
                    name += "_" + character.lowercased()
                } else {
                    name.append(character)
                }
            }
            return (name, entry.key.location)
        }
    }

    static func keyLocation(_ node: YAMLNode, _ key: String, relaxed: Bool = false) -> SourceLocation? {
        guard case .mapping(let entries, _) = node else { return nil }
        let wanted = relaxed ? normalized(key) : key
        return entries.first { (relaxed ? normalized($0.key.value) : $0.key.value) == wanted }?.key.location
    }

    static func normalized(_ key: String) -> String {
        String(key.lowercased().filter { $0 != "-" && $0 != "_" })
    }

    static func items(_ node: YAMLNode) -> [YAMLNode] {
        if case .sequence(let items, _) = node { return items }
        return []
    }

    static func entries(_ node: YAMLNode) -> [(key: YAMLScalar, value: YAMLNode)] {
        if case .mapping(let entries, _) = node { return entries }
        return []
    }

    mutating func mapping(_ node: YAMLNode, _ what: String) -> YAMLNode? {
        if case .mapping = node { return node }
        error(.wrongType, node, "\(what): expected a mapping, found \(node.kindDescription)")
        return nil
    }

    mutating func list(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
        if case .sequence(let items, _) = node { return items }
        error(.wrongType, node, "\(what): expected a list, found \(node.kindDescription)")
        return nil
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        if case .scalar(let scalar) = node, case .string(let text) = scalar.resolved { return text }
        error(.wrongType, node, "\(what): expected a string, found \(node.kindDescription)")
        return nil
    }

    /// A string or a plain scalar of any type, as text (INI-like values,
    /// Spring properties written unquoted).
    mutating func text(_ node: YAMLNode, _ what: String) -> String? {
        if case .scalar(let scalar) = node { return scalar.value }
        error(.wrongType, node, "\(what): expected a value, found \(node.kindDescription)")
        return nil
    }

    mutating func integer(_ node: YAMLNode, _ what: String, lenient: Bool = false) -> Int? {
        if case .scalar(let scalar) = node {
            switch scalar.resolved {
            case .integer(let value): return value
            case .float(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
            case .string(let text) where lenient: if let value = Int(text) { return value }
            default: break
            }
        }
        error(.wrongType, node, "\(what): expected an integer, found \(node.kindDescription)")
        return nil
    }

    mutating func number(_ node: YAMLNode, _ what: String, lenient: Bool = false) -> Double? {
        if case .scalar(let scalar) = node {
            switch scalar.resolved {
            case .integer(let value): return Double(value)
            case .float(let value): return value
            case .string(let text) where lenient: if let value = Double(text) { return value }
            default: break
            }
        }
        error(.wrongType, node, "\(what): expected a number, found \(node.kindDescription)")
        return nil
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .scalar(let scalar) = node {
            switch scalar.resolved {
            case .bool(let value): return value
            case .string(let text) where text == "true" || text == "false": return text == "true"
            default: break
            }
        }
        error(.wrongType, node, "\(what): expected true or false, found \(node.kindDescription)")
        return nil
    }

    /// A protobuf Duration: the JSON string form (`"1.5s"`), or the
    /// `{seconds, nanos}` object form.
    mutating func protoDuration(_ node: YAMLNode, _ what: String) -> Duration? {
        if case .scalar(let scalar) = node, case .string(let text) = scalar.resolved {
            if let duration = ForeignDuration.parseProto(text) { return duration }
            error(.invalidValue, node, "\(what): expected a duration such as \"0.1s\" (seconds with an s suffix), found \"\(text)\"")
            return nil
        }
        if case .mapping = node {
            var seconds: Int64 = 0
            var nanos: Int64 = 0
            if let value = Self.value(node, "seconds"), let parsed = integer(value, what + ".seconds") { seconds = Int64(parsed) }
            if let value = Self.value(node, "nanos"), let parsed = integer(value, what + ".nanos") { nanos = Int64(parsed) }
            guard seconds >= 0, nanos >= 0, seconds <= ForeignDuration.protoMaximumSeconds, nanos < 1_000_000_000 else {
                error(.invalidValue, node, "\(what): expected seconds from 0 to \(ForeignDuration.protoMaximumSeconds) and nanos from 0 to 999999999")
                return nil
            }
            return .seconds(seconds) + .nanoseconds(nanos)
        }
        error(.wrongType, node, "\(what): expected a duration such as \"0.1s\", found \(node.kindDescription)")
        return nil
    }
}

extension YAMLNode {
    /// A scalar's text; `nil` for a mapping or list.
    var scalarText: String? {
        if case .scalar(let scalar) = self { return scalar.value }
        return nil
    }
}
