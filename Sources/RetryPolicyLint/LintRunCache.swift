import RetryPolicyCore
import RetryPolicyYAML

/// What the files of one lint run share: every file named by others (an
/// extended base, a parity partner, a stack layer) is parsed and decoded
/// once (``PolicyLoadCache``, which still reads each reference through
/// the root), and a parity pair is compared once, whichever of its two
/// files is linted first.
final class LintRunCache: Sendable {
    let loads = PolicyLoadCache()

    /// A parity comparison between two files, by their canonical paths.
    private struct Pair: Hashable {
        var left: String
        var right: String
    }

    /// A comparison and the two policies it was made from.
    private struct Compared: Sendable {
        var left: Policy
        var right: Policy
        var comparison: PolicyComparison
    }

    private let comparisons = LockedValue<[Pair: Compared]>([:])
    /// How many comparisons were computed rather than reused.
    let comparisonsMade = LockedValue(0)

    /// `PolicyDiff.compare(policy, partner)`, or the comparison of the same
    /// two files made from the other side, mirrored. A stored comparison
    /// is used only for the very policies it was made from (a file that
    /// changed during the run is compared again), and the other side's
    /// only when it compared the same methods in the same order (then the
    /// walk is the same and only the sides swap).
    func comparison(of policy: Policy, at path: String, with partner: Policy, at partnerPath: String) -> PolicyComparison {
        let pair = Pair(left: path, right: partnerPath)
        let reversed = Pair(left: partnerPath, right: path)
        let reused: PolicyComparison? = comparisons.withLock { stored in
            if let known = stored[pair], known.left == policy, known.right == partner { return known.comparison }
            if let known = stored[reversed], known.left == partner, known.right == policy,
                known.comparison.methods == distinguishedMethods(of: [policy, partner]) {
                return known.comparison.mirrored
            }
            return nil
        }
        if let reused { return reused }
        let comparison = PolicyDiff.compare(policy, partner)
        comparisons.withLock { $0[pair] = Compared(left: policy, right: partner, comparison: comparison) }
        comparisonsMade.withLock { $0 += 1 }
        return comparison
    }
}
