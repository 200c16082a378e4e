/// Bounds that keep parsing cheap and safe on hostile input.
///
/// Policy files are small and hand-written; anything near these limits is
/// a mistake or an attack, so exceeding one is an error, never a silent
/// truncation.
public struct YAMLLimits: Hashable, Sendable {
    /// Largest file accepted, in bytes.
    public var maxBytes: Int
    /// Deepest nesting of mappings and sequences.
    public var maxDepth: Int
    /// Most nodes (scalars, mappings, sequences) in one document.
    public var maxNodes: Int
    /// Deepest chain of `extends`.
    public var maxExtendsDepth: Int

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 64, maxNodes: Int = 100_000, maxExtendsDepth: Int = 16) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxNodes = maxNodes
        self.maxExtendsDepth = maxExtendsDepth
    }

    /// 1 MiB, depth 64, 100,000 nodes, 16 levels of `extends`.
    public static let `default` = YAMLLimits()
}
