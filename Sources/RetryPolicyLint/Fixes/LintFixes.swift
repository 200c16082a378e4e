import RetryPolicyCore
import RetryPolicyYAML

/// The fixes of the findings whose resolution is mechanical: one answer,
/// no judgement. Each edits the source text by range, so comments,
/// quoting and the formatting of every other line stay as written.
///
/// - A misspelt key or value with a did-you-mean (the loader's RP0xx):
///   the word at the finding is replaced by the suggested one.
/// - RP107 (`jitter: none`): the value becomes `full`.
/// - RP104 (`max` below `initial`): `max` takes `initial`'s value, as
///   written.
/// - RP116 (a suppression that silences nothing): its id is taken out of
///   the comment, and a comment left with no id is deleted (the whole line
///   when it stood alone).
///
/// Findings whose fix is a choice (which multiplier, which cap, which rule
/// to move) get none. A fix is made only when the text at the finding's
/// location is what the rule describes, in the file being linted.
enum LintFixes {
    static func fix(for finding: LintFinding, in source: FixSource, policy: Policy?) -> LintFix? {
        guard finding.location.file == source.file else { return nil }
        switch finding.id {
        case MissingJitter.rule.id: return jitter(finding, source)
        case BackoffMaxBelowInitial.rule.id: return maxBelowInitial(finding, source, policy)
        case UnusedSuppression.rule.id: return unusedSuppression(finding, source)
        default: return didYouMean(finding, source)
        }
    }

    /// `did you mean 'backoff'?`: the suggested word replaces the one at
    /// the finding, when that one is a plain scalar close to it.
    static func didYouMean(_ finding: LintFinding, _ source: FixSource) -> LintFix? {
        guard let suggestion = finding.suggestion, suggestion.hasPrefix("did you mean '"), suggestion.hasSuffix("'?") else {
            return nil
        }
        let candidate = String(suggestion.dropFirst("did you mean '".count).dropLast(2))
        // Only a word that is a plain scalar wherever it is written: a
        // name declared in the file could hold YAML syntax.
        guard !candidate.isEmpty, candidate.unicodeScalars.allSatisfy(Self.isWordScalar),
            let word = source.plainScalar(line: finding.location.line, column: finding.location.column)
        else { return nil }
        let written = source.text(word.start, word.end)
        guard written != candidate, Suggestion.closest(to: written, among: [candidate]) == candidate else { return nil }
        return LintFix(
            description: "replace '\(written)' with '\(candidate)'",
            edits: [source.edit(word.start, word.end, with: candidate)])
    }

    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".", "/": true
        default: false
        }
    }

    /// `jitter: none` -> `jitter: full`.
    static func jitter(_ finding: LintFinding, _ source: FixSource) -> LintFix? {
        let location = finding.location
        guard let key = source.plainScalar(line: location.line, column: location.column),
            source.text(key.start, key.end) == "jitter",
            let value = source.valueAfterKey(line: location.line, column: location.column),
            source.text(value.start, value.end) == "none"
        else { return nil }
        return LintFix(description: "set backoff.jitter to full", edits: [source.edit(value.start, value.end, with: "full")])
    }

    /// `max` raised to `initial`, spelt as `initial` is written in this file.
    static func maxBelowInitial(_ finding: LintFinding, _ source: FixSource, _ policy: Policy?) -> LintFix? {
        let location = finding.location
        guard let initialKey = policy?.keyLocations["backoff.initial"], initialKey.file == source.file,
            let key = source.plainScalar(line: location.line, column: location.column),
            source.text(key.start, key.end) == "max",
            let value = source.valueAfterKey(line: location.line, column: location.column),
            let initial = source.valueAfterKey(line: initialKey.line, column: initialKey.column)
        else { return nil }
        let initialText = source.text(initial.start, initial.end)
        return LintFix(
            description: "set backoff.max to \(initialText), the initial delay",
            edits: [source.edit(value.start, value.end, with: initialText)])
    }

    /// The unused id out of its `# retry-policy: disable=...` comment.
    static func unusedSuppression(_ finding: LintFinding, _ source: FixSource) -> LintFix? {
        let location = finding.location
        guard let hash = source.offset(line: location.line, column: location.column),
            hash < source.bytes.count, source.bytes[hash] == UInt8(ascii: "#")
        else { return nil }
        let end = source.lineEnd(location.line)
        let comment = source.text(hash, end)
        guard let equals = comment.firstIndex(of: "=") else { return nil }
        let listStart = hash + comment.utf8.distance(from: comment.startIndex, to: comment.index(after: equals))
        var listEnd = listStart
        while listEnd < end, source.bytes[listEnd] != UInt8(ascii: " "), source.bytes[listEnd] != UInt8(ascii: "\t") { listEnd += 1 }
        let ids = source.text(listStart, listEnd).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        // The message names the id: `suppression of RP105 silences nothing`.
        guard let unused = ids.first(where: { !$0.isEmpty && finding.message.hasPrefix("suppression of \($0.uppercased()) ") }) else {
            return nil
        }
        let kept = ids.filter { $0 != unused && !$0.isEmpty }
        if !kept.isEmpty {
            return LintFix(
                description: "remove \(unused.uppercased()) from the suppression comment",
                edits: [source.edit(listStart, listEnd, with: kept.joined(separator: ","))])
        }
        let lineStart = source.lineStarts[location.line - 1]
        var start = hash
        while start > lineStart, source.bytes[start - 1] == UInt8(ascii: " ") || source.bytes[start - 1] == UInt8(ascii: "\t") {
            start -= 1
        }
        if start == lineStart {
            // A comment on a line of its own: the line goes.
            return LintFix(
                description: "delete the suppression comment",
                edits: [source.edit(lineStart, source.nextLineStart(location.line), with: "")])
        }
        return LintFix(description: "delete the suppression comment", edits: [source.edit(start, end, with: "")])
    }
}
