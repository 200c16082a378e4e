import RetryPolicyCore

/// Where a generator's choices come from: a seeded stream, or a list of
/// genes a property test draws and shrinks. With genes, each choice reads
/// the next gene, and gene 0 (or a missing gene) is every choice's first
/// option and no extra, so a failing case shrinks towards the simplest
/// policy; with a seed, the same seed gives the same choices.
public struct GeneratorChoices: Sendable {
    private enum Source: Sendable {
        case seeded(SplitMix64)
        case genes([Int], next: Int)
    }

    private var source: Source

    public init(seed: UInt64) {
        source = .seeded(SplitMix64(seed: seed))
    }

    public init(genes: [Int]) {
        source = .genes(genes, next: 0)
    }

    /// A whole number in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        switch source {
        case .seeded(var random):
            let value = Int.random(in: range, using: &random)
            source = .seeded(random)
            return value
        case .genes(let genes, let next):
            source = .genes(genes, next: next + 1)
            let gene = next < genes.count ? genes[next].magnitude : 0
            // Counted in UInt so that a range as wide as Int still works.
            let width = UInt(bitPattern: range.upperBound &- range.lowerBound) &+ 1
            return width == 0 ? range.lowerBound &+ Int(bitPattern: gene) : range.lowerBound &+ Int(bitPattern: gene % width)
        }
    }

    /// One of `values`.
    public mutating func pick<T>(_ values: [T]) -> T {
        values[int(in: 0...(values.count - 1))]
    }

    /// True one time in `oneIn`. With genes, gene 0 is false: the extra
    /// is left out of the simplest case.
    public mutating func chance(_ oneIn: Int) -> Bool {
        let drawn = int(in: 0...(oneIn - 1))
        if case .genes = source { return drawn == oneIn - 1 }
        return drawn == 0
    }
}
