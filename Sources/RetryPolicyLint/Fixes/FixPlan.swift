import RetryPolicyCore

/// What `lint --fix` writes and `lint --diff` shows: the fixes of a
/// report, grouped by file, with the new text of every file they change.
///
/// Fixes are taken in file order; one whose edits overlap an edit already
/// taken is left out (``skipped``), never merged: two rules that want the
/// same text each have a say only on their own. Running lint again shows
/// what remains. A fix made from text that is no longer in the file (it
/// changed after lint read it) is left out too.
package struct FixPlan: Sendable {
    package struct FileChange: Sendable {
        /// As the findings name it.
        package var file: String
        package var original: [UInt8]
        package var fixed: [UInt8]
        /// The edits applied, in file order.
        package var edits: [TextEdit]
        /// The findings whose fixes are applied.
        package var fixedFindings: [LintFinding]

        /// The unified diff from ``original`` to ``fixed``, the file
        /// named `name` (default: ``file``) in its header.
        package func diff(named name: String? = nil) -> String {
            UnifiedDiff.render(file: name ?? file, original: original, edits: edits)
        }
    }

    package var changes: [FileChange]
    /// Findings with a fix that was not applied, and why.
    package var skipped: [(finding: LintFinding, reason: String)]

    /// Plans the fixes of `findings`, reading each file's current bytes
    /// through `read` (`nil`: the file cannot be read, its fixes skipped).
    package init(findings: [LintFinding], read: (String) -> [UInt8]?) {
        changes = []
        skipped = []
        var byFile: [String: [LintFinding]] = [:]
        var order: [String] = []
        for finding in findings {
            guard let fix = finding.fix, let file = fix.edits.first?.file else { continue }
            guard fix.edits.allSatisfy({ $0.file == file }) else {
                skipped.append((finding, "its edits span several files"))
                continue
            }
            if byFile[file] == nil { order.append(file) }
            byFile[file, default: []].append(finding)
        }
        for file in order {
            guard let bytes = read(file) else {
                for finding in byFile[file] ?? [] { skipped.append((finding, "the file cannot be read")) }
                continue
            }
            let source = FixSource(file: file, bytes: bytes)
            var taken: [TextEdit] = []
            var fixed: [LintFinding] = []
            // By where the first edit starts, then in report order.
            let candidates = (byFile[file] ?? []).enumerated().sorted { lhs, rhs in
                let (left, right) = (lhs.element.fix!.edits[0].start, rhs.element.fix!.edits[0].start)
                return left == right ? lhs.offset < rhs.offset : left < right
            }.map(\.element)
            for finding in candidates {
                let edits = finding.fix!.edits
                guard edits.allSatisfy({ Self.matches($0, source) }) else {
                    skipped.append((finding, "the file changed after it was linted"))
                    continue
                }
                if edits.contains(where: { edit in taken.contains { $0.overlaps(edit) } }) {
                    skipped.append((finding, "its edit overlaps another fix; run lint --fix again"))
                    continue
                }
                taken += edits
                fixed.append(finding)
            }
            guard !taken.isEmpty else { continue }
            taken.sort { $0.start < $1.start }
            changes.append(FileChange(
                file: file, original: bytes, fixed: Self.apply(taken, to: bytes), edits: taken, fixedFindings: fixed))
        }
    }

    /// Whether the edit's byte range still lies where its line and column
    /// say, in a file of this length.
    static func matches(_ edit: TextEdit, _ source: FixSource) -> Bool {
        guard edit.start.byteOffset <= edit.end.byteOffset, edit.end.byteOffset <= source.bytes.count else { return false }
        return source.offset(line: edit.start.line, column: edit.start.column) == edit.start.byteOffset
            && source.offset(line: edit.end.line, column: edit.end.column) == edit.end.byteOffset
    }

    /// `bytes` with `edits` (sorted, non-overlapping) applied.
    static func apply(_ edits: [TextEdit], to bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        for edit in edits {
            result += bytes[copied..<edit.start.byteOffset]
            result += Array(edit.replacement.utf8)
            copied = edit.end.byteOffset
        }
        result += bytes[copied...]
        return result
    }

    /// How many fixes the plan applies.
    package var fixCount: Int { changes.reduce(0) { $0 + $1.fixedFindings.count } }
}
