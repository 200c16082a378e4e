/// Where a byte stream is cut into reads: a pipe hands the server bytes
/// in pieces of any size, so a header or a body may end anywhere.
///
/// The selector's low three bits pick the largest read (the whole stream
/// at once, or 1, 2, 3, 7, 64, 511 or 4,096 bytes); its high five bits
/// seed the sizes below it.
struct ReadSchedule: Sendable {
    static let largestReads = [Int.max, 1, 2, 3, 7, 64, 511, 4096]

    let largest: Int
    private var state: UInt32

    init(selector: UInt8) {
        largest = Self.largestReads[Int(selector & 7)]
        state = (UInt32(selector >> 3) &* 2_654_435_761) | 1
    }

    /// The next read's size, at least 1 and at most `remaining`.
    mutating func nextSize(remaining: Int) -> Int {
        guard largest < remaining else { return remaining }
        // xorshift32: any nonzero state stays nonzero.
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return 1 + Int(state % UInt32(largest))
    }
}
