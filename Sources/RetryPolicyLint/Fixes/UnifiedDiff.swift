import RetryPolicyCore

/// The unified diff (`diff -u`, three lines of context, `a/` and `b/`
/// prefixes as git writes them) of a file and its edits, made from the
/// edits themselves: the changed lines are known, so nothing is searched.
///
/// The file's lines are printed through `DisplayText`, as every text from
/// a file is: a line holding a control or bidirectional character shows
/// it escaped (such a diff no longer applies as a patch, and cannot steer
/// the terminal that shows it).
enum UnifiedDiff {
    static let context = 3

    /// A run of whole lines of the original, `firstLine..<endLine`
    /// (0-based), and the text they become.
    private struct Change {
        var firstLine: Int
        var endLine: Int
        var newText: [UInt8]
    }

    static func render(file: String, original: [UInt8], edits: [TextEdit]) -> String {
        let lines = lineSpans(original)
        let lineStart = { (index: Int) in index < lines.count ? lines[index].lowerBound : original.count }
        /// The index of the line holding byte `offset`.
        func line(of offset: Int) -> Int {
            var low = 0
            var high = lines.count
            while low < high {
                let middle = (low + high) / 2
                if lines[middle].upperBound <= offset { low = middle + 1 } else { high = middle }
            }
            return low
        }
        var changes: [(first: Int, end: Int, edits: [TextEdit])] = []
        for edit in edits {
            let first = line(of: edit.start.byteOffset)
            let end = first == lines.count ? first : line(of: max(edit.start.byteOffset, edit.end.byteOffset - 1)) + 1
            if let last = changes.last, first <= last.end {
                changes[changes.count - 1].end = max(last.end, end)
                changes[changes.count - 1].edits.append(edit)
            } else {
                changes.append((first: first, end: end, edits: [edit]))
            }
        }
        let resolved: [Change] = changes.map { change in
            let start = lineStart(change.first)
            let stop = lineStart(change.end)
            var text: [UInt8] = []
            var copied = start
            for edit in change.edits {
                text += original[copied..<edit.start.byteOffset]
                text += Array(edit.replacement.utf8)
                copied = edit.end.byteOffset
            }
            text += original[copied..<stop]
            return Change(firstLine: change.first, endLine: change.end, newText: text)
        }
        var output = "--- a/\(DisplayText.escaped(file))\n+++ b/\(DisplayText.escaped(file))\n"
        var delta = 0
        var index = 0
        while index < resolved.count {
            var last = index
            while last + 1 < resolved.count, resolved[last + 1].firstLine - resolved[last].endLine <= 2 * context { last += 1 }
            let oldStart = max(0, resolved[index].firstLine - context)
            let oldEnd = min(lines.count, resolved[last].endLine + context)
            var body = ""
            var newCount = 0
            var cursor = oldStart
            for change in resolved[index...last] {
                while cursor < change.firstLine {
                    body += " " + shown(original[lines[cursor]])
                    cursor += 1
                    newCount += 1
                }
                for old in change.firstLine..<change.endLine { body += "-" + shown(original[lines[old]]) }
                for new in lineSpans(change.newText) {
                    body += "+" + shown(change.newText[new])
                    newCount += 1
                }
                cursor = change.endLine
            }
            while cursor < oldEnd {
                body += " " + shown(original[lines[cursor]])
                cursor += 1
                newCount += 1
            }
            let oldCount = oldEnd - oldStart
            let newStart = oldStart + delta
            output += "@@ -\(range(oldStart, oldCount)) +\(range(newStart, newCount)) @@\n" + body
            delta += newCount - oldCount
            index = last + 1
        }
        return output
    }

    /// `start,count` as a hunk header writes it: 1-based, and the line
    /// before the range when it is empty.
    private static func range(_ start: Int, _ count: Int) -> String {
        "\(count == 0 ? start : start + 1),\(count)"
    }

    /// The byte ranges of the lines of `bytes`, each with its line break;
    /// no empty line after a final line break.
    static func lineSpans(_ array: [UInt8]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var start = 0
        var index = 0
        while index < array.count {
            if array[index] == UInt8(ascii: "\n") {
                spans.append(start..<(index + 1))
                start = index + 1
            } else if array[index] == UInt8(ascii: "\r") {
                let end = index + 1 < array.count && array[index + 1] == UInt8(ascii: "\n") ? index + 2 : index + 1
                spans.append(start..<end)
                start = end
                index = end
                continue
            }
            index += 1
        }
        if start < array.count { spans.append(start..<array.count) }
        return spans
    }

    /// One line of the diff: the text made safe to print, its own line
    /// break kept, the marker git prints for a last line without one.
    private static func shown(_ line: some Collection<UInt8>) -> String {
        var text = Array(line)
        var ending = ""
        if text.last == UInt8(ascii: "\n") {
            text.removeLast()
            ending = "\n"
        }
        if text.last == UInt8(ascii: "\r") {
            text.removeLast()
            ending = ending.isEmpty ? "\n" : "\r\n"
        }
        let content = DisplayText.escaped(String(decoding: text, as: UTF8.self))
        return ending.isEmpty ? content + "\n\\ No newline at end of file\n" : content + ending
    }
}
