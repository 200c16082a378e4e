import RetryPolicyCore

/// The statuses on which a first try ends in success for any method, under
/// a policy where settling that success has nothing to do (no budget to
/// refund): a bit per status from 100 to 611, inline, so that testing one
/// is a shift and a mask with no reference to follow or count.
///
/// The same answer as `RetryDecider.settlePlainSuccess(ofFirstAttempt:method:)`
/// for a response without headers, computed once per executor from it.
@usableFromInline
struct PlainSuccessStatuses: Sendable {
    @usableFromInline var bits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// `nil` when the answer depends on more than the status: a rule that
    /// names methods, or a budget that a success refunds.
    init?(_ decider: RetryDecider) {
        guard decider.budget == nil, decider.compiledPolicy.namedMethods.isEmpty else { return nil }
        for status in 100...599 where decider.isPlainSuccess(.status(status), method: .get) {
            let offset = status - 100
            withUnsafeMutableBytes(of: &bits) { raw in
                let words = raw.bindMemory(to: UInt64.self)
                words[offset >> 6] |= 1 << UInt64(offset & 63)
            }
        }
    }

    @inlinable
    func contains(_ status: Int) -> Bool {
        let offset = status &- 100
        guard UInt(bitPattern: offset) < 512 else { return false }
        return withUnsafeBytes(of: bits) { raw in
            raw.load(fromByteOffset: (offset >> 6) &* 8, as: UInt64.self) >> UInt64(offset & 63) & 1 == 1
        }
    }
}
