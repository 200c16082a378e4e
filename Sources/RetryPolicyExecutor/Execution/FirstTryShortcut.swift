/// What a first try's success is decided with when nothing else is
/// needed, kept in the executor value: whether any request without an
/// endpoint may start at once (`RetryDecider.mayAlwaysStartAtOnce`, under
/// an unobserved executor), and
/// which statuses from 200 to 263 are plain successes for every method
/// (those of `PlainSuccessStatuses`, where nearly every success falls).
///
/// A status outside that word, or not in it, is asked of the setup's
/// `PlainSuccessStatuses` and then of the decider: the shortcut only ever
/// answers "success" where they would.
@usableFromInline
struct FirstTryShortcut: Sendable {
    @usableFromInline let startsAtOnce: Bool
    /// Bit `n` is status `200 + n`.
    @usableFromInline let successes: UInt64

    init(startsAtOnce: Bool, successes statuses: PlainSuccessStatuses) {
        self.startsAtOnce = startsAtOnce
        var bits: UInt64 = 0
        for status in 200..<264 where statuses.contains(status) { bits |= 1 << UInt64(status - 200) }
        successes = bits
    }

    @inlinable
    func isSuccess(_ status: Int) -> Bool {
        let offset = status &- 200
        return UInt(bitPattern: offset) < 64 && successes >> UInt64(offset) & 1 == 1
    }
}
