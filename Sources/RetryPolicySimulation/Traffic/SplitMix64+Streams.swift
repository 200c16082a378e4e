import RetryPolicyCore

extension SplitMix64 {
    /// The generator of request `id` among requests whose streams come from
    /// `base`: every request draws its jitter from a stream of its own, so
    /// what one request draws never depends on what others did before it.
    /// A request runs the same whether its events interleave with others'
    /// or it runs alone, and comparing two policies on the same traffic
    /// gives each request the same random numbers under both.
    ///
    /// Streams start at `base` mixed with the id, not at `base` plus a
    /// multiple of SplitMix64's increment: those would be one stream,
    /// shifted.
    init(stream id: Int, of base: UInt64) {
        var seeder = SplitMix64(seed: base &+ UInt64(bitPattern: Int64(id)) &* 0xD1B5_4A32_D192_ED03)
        self.init(seed: seeder.next())
    }
}
