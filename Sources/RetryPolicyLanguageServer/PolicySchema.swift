import Foundation

/// The policy format's JSON Schema, walked by key path: what hover says
/// about a key and what completion offers come from the same document as
/// the editor's schema validation.
struct PolicySchema: Sendable {
    /// One schema node, its `$ref`s followed.
    struct Node: Sendable {
        var value: LSPValue

        var description: String? { value["description"]?.string }
        /// The enumerated values, through `anyOf`/`oneOf` branches.
        var enumerated: [String] {
            var values: [String] = []
            for item in value["enum"]?.array ?? [] {
                switch item {
                case .string(let text): values.append(text)
                case .int(let number): values.append(String(number))
                case .bool(let flag): values.append(flag ? "true" : "false")
                default: break
                }
            }
            return values
        }
        var propertyNames: [String] { value["properties"].flatMap { if case .object(let fields) = $0 { Array(fields.keys) } else { nil } } ?? [] }
    }

    let root: LSPValue

    static let shared = PolicySchema(json: PolicySchemaText.json)

    init(json: String) {
        root = (try? JSONDecoder().decode(LSPValue.self, from: Data(json.utf8))) ?? .null
    }

    /// `#/$defs/name`.
    func resolve(_ node: LSPValue) -> LSPValue {
        var current = node
        var hops = 0
        while let reference = current["$ref"]?.string, reference.hasPrefix("#/$defs/"), hops < 16 {
            let name = String(reference.dropFirst("#/$defs/".count))
            guard let target = root["$defs"]?[name] else { break }
            // A node's own description wins over its definition's.
            if case .object(var fields) = target, let own = current["description"] {
                fields["description"] = own
                current = .object(fields)
            } else {
                current = target
            }
            hops += 1
        }
        return current
    }

    /// The node and its `anyOf`/`oneOf`/`allOf` branches, resolved.
    func branches(_ node: LSPValue) -> [LSPValue] {
        let resolved = resolve(node)
        var all = [resolved]
        for key in ["anyOf", "oneOf", "allOf"] {
            for branch in resolved[key]?.array ?? [] { all += branches(branch) }
        }
        return all
    }

    /// The top of a policy file, or of a stack file when `isStack`.
    func top(isStack: Bool) -> LSPValue {
        resolve(["$ref": .string(isStack ? "#/$defs/stackFile" : "#/$defs/policyFile")])
    }

    /// The node at `path` (keys, `[]` for a list item), `nil` when the
    /// schema has none there.
    func node(at path: [String], isStack: Bool) -> Node? {
        var current = top(isStack: isStack)
        for component in path {
            var next: LSPValue?
            for branch in branches(current) {
                if component == "[]" {
                    if let items = branch["items"] { next = items; break }
                } else if let property = branch["properties"]?[component] {
                    next = property
                    break
                } else if let additional = branch["additionalProperties"], additional != .bool(false), additional != .bool(true) {
                    next = additional
                }
            }
            guard let found = next else { return nil }
            current = found
        }
        return Node(value: resolve(current))
    }

    /// The keys a mapping at `path` may hold, with their descriptions.
    func keys(at path: [String], isStack: Bool) -> [(key: String, description: String?)] {
        guard let node = node(at: path, isStack: isStack) else { return [] }
        var keys: [(String, String?)] = []
        for branch in branches(node.value) {
            guard case .object(let properties)? = branch["properties"] else { continue }
            for (key, value) in properties.sorted(by: { $0.key < $1.key }) where !keys.contains(where: { $0.0 == key }) {
                keys.append((key, resolve(value)["description"]?.string))
            }
        }
        return keys
    }

    /// The values a scalar at `path` may take, from `enum`s in any branch.
    func values(at path: [String], isStack: Bool) -> [String] {
        guard let node = node(at: path, isStack: isStack) else { return [] }
        var values: [String] = []
        for branch in branches(node.value) {
            let candidates = branch["items"].map { branches($0) } ?? [branch]
            for candidate in candidates {
                for value in Node(value: candidate).enumerated where !values.contains(value) { values.append(value) }
            }
        }
        return values
    }

    /// A node's description, through its branches.
    func description(at path: [String], isStack: Bool) -> String? {
        guard let node = node(at: path, isStack: isStack) else { return nil }
        return branches(node.value).lazy.compactMap { $0["description"]?.string }.first
    }
}
