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

    /// None when the answer depends on more than the status: a rule that
    /// names methods, or a budget that a success refunds. A status outside
    /// the set is asked of the decider, so an empty set costs a look-up,
    /// never a wrong answer.
    init(_ decider: RetryDecider) {
        guard decider.budget == nil, decider.compiledPolicy.namedMethods.isEmpty else { return }
        for status in 100...599 where decider.isPlainSuccess(.status(status), method: .get) {
            let offset = status - 100
            withUnsafeMutableBytes(of: &bits) { raw in
                let words = raw.bindMemory(to: UInt64.self)
                words[offset >> 6] |= 1 << UInt64(offset & 63)
            }
        }
    }

    /// One word read where it is stored: a word picked by a switch, not by
    /// an offset into the tuple, which would copy all eight first.
    @inlinable
    func contains(_ status: Int) -> Bool {
        let offset = status &- 100
        guard UInt(bitPattern: offset) < 512 else { return false }
        let word: UInt64
        switch offset >> 6 {
        case 0: word = bits.0
        case 1: word = bits.1
        case 2: word = bits.2
        case 3: word = bits.3
        case 4: word = bits.4
        case 5: word = bits.5
        case 6: word = bits.6
        default: word = bits.7
        }
        return word >> UInt64(offset & 63) & 1 == 1
    }
}
