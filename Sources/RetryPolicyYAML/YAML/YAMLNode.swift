import RetryPolicyCore

/// A YAML node that remembers where it was written.
///
/// Anchors, aliases and custom tags never reach this tree (the parser
/// refuses them), so it is a plain finite tree: walking it cannot blow up.
public indirect enum YAMLNode: Sendable {
    case scalar(YAMLScalar)
    /// Entries in file order. Keys are scalars and unique (the parser
    /// refuses duplicates and complex keys).
    case mapping([(key: YAMLScalar, value: YAMLNode)], SourceLocation)
    case sequence([YAMLNode], SourceLocation)

    /// Where the node starts.
    public var location: SourceLocation {
        switch self {
        case .scalar(let scalar): scalar.location
        case .mapping(_, let location): location
        case .sequence(_, let location): location
        }
    }

    /// The value under `key`, when the node is a mapping that has it.
    public subscript(key: String) -> YAMLNode? {
        guard case .mapping(let entries, _) = self else { return nil }
        return entries.first { $0.key.value == key }?.value
    }

    /// The entry for `key` with the key's own location.
    public func entry(_ key: String) -> (key: YAMLScalar, value: YAMLNode)? {
        guard case .mapping(let entries, _) = self else { return nil }
        return entries.first { $0.key.value == key }
    }

    /// "a mapping", "a list", "the string 'x'", for messages that say what
    /// was found.
    package var kindDescription: String {
        switch self {
        case .scalar(let scalar): scalar.kindDescription
        case .mapping(let entries, _): entries.isEmpty ? "an empty mapping" : "a mapping"
        case .sequence(let items, _): items.isEmpty ? "an empty list" : "a list"
        }
    }
}
