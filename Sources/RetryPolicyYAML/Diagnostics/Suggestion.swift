/// "Did you mean" suggestions for misspelt keys and values, for every file
/// users write (policies, policy tests, lint settings).
public enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a
    /// plausible typo: a case-insensitive match, or an edit distance of at
    /// most a third of the word's length (at least 1, at most 3).
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            if candidate.lowercased() == lowered { return candidate }
            let distance = editDistance(lowered, candidate.lowercased())
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = Swift.min(3, Swift.max(1, word.count / 3))
        return best.distance <= allowed ? best.candidate : nil
    }

    /// "did you mean 'x'?" or `nil`.
    public static func didYouMean(_ word: String, among candidates: some Sequence<String>) -> String? {
        closest(to: word, among: candidates).map { "did you mean '\($0)'?" }
    }

    /// Levenshtein distance with transpositions counted as one edit
    /// (optimal string alignment), so `bakcoff` is one step from `backoff`.
    /// Inputs longer than 64 characters are not typos of any key; they get
    /// a large distance without the quadratic work.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.unicodeScalars)
        let y = Array(b.unicodeScalars)
        if x.count > 64 || y.count > 64 { return Int.max / 2 }
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous2 = [Int](repeating: 0, count: y.count + 1)
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                var value = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] {
                    value = Swift.min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            previous2 = previous
            previous = current
        }
        return previous[y.count]
    }
}
