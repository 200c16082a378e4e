/// Where the cursor is in a policy's YAML, told from indentation so that
/// it works on text that does not parse while it is typed: the keys of
/// the enclosing mappings (`[]` for a list item), the key on the line, and
/// whether the cursor is in its value.
struct YAMLContext: Sendable, Equatable {
    /// The enclosing keys, outermost first: `["rules", "[]"]` on a rule's line.
    var path: [String]
    /// The key written on the cursor's line, if any.
    var key: String?
    /// Whether the cursor is after the key's colon.
    var inValue: Bool
    /// The value written after the colon (trimmed, comment removed).
    var value: String

    /// One line's shape.
    struct Line {
        /// Column (0-based, in scalars) of the key or value text.
        var indent: Int
        /// Column of `- ` when the line starts a list item.
        var dash: Int?
        var key: String?
        /// Scalar offset of the colon after the key.
        var colon: Int?
        var isBlank: Bool

        init(_ text: Substring) {
            let scalars = Array(text.unicodeScalars)
            var index = 0
            while index < scalars.count && scalars[index] == " " { index += 1 }
            isBlank = index == scalars.count || scalars[index] == "#"
            if index < scalars.count, scalars[index] == "-", index + 1 == scalars.count || scalars[index + 1] == " " {
                dash = index
                index += 1
                while index < scalars.count && scalars[index] == " " { index += 1 }
            }
            indent = index
            var end = index
            while end < scalars.count, scalars[end] != ":", scalars[end] != "#", scalars[end] != " " || (end + 1 < scalars.count && scalars[end + 1] != ":" && scalars[end + 1] != " ") {
                end += 1
            }
            if end < scalars.count, scalars[end] == ":", end > index, end + 1 == scalars.count || scalars[end + 1] == " " {
                var name = String.UnicodeScalarView()
                name.append(contentsOf: scalars[index..<end])
                key = String(name).trimmingCharacters(in: "\"' ")
                colon = end
            }
        }
    }

    init(path: [String], key: String?, inValue: Bool, value: String) {
        self.path = path
        self.key = key
        self.inValue = inValue
        self.value = value
    }

    /// The context at `column` (0-based scalars) of the 0-based `line`.
    init(text: DocumentText, line: Int, column: Int) {
        let current = Line(text.line(line))
        key = current.key
        inValue = current.colon.map { column > $0 } ?? false
        if let colon = current.colon {
            let rest = String(String.UnicodeScalarView(Array(text.line(line).unicodeScalars).dropFirst(colon + 1)))
            value = String(rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingCharacters(in: " \t\"'")
        } else {
            value = String(text.line(line)).trimmingCharacters(in: " -\t")
        }
        var path: [String] = []
        // A blank line's place is where the cursor is.
        var indent = current.isBlank && current.dash == nil ? column : current.indent
        if let dash = current.dash {
            path.append("[]")
            indent = dash
        }
        var index = line - 1
        while index >= 0 {
            if indent == 0 && path.last != "[]" { break }
            let above = Line(text.line(index))
            index -= 1
            if above.isBlank && above.dash == nil { continue }
            if let dash = above.dash {
                // A line of the same list item, or the item's first line.
                if dash < indent && above.indent <= indent {
                    path.append("[]")
                    indent = dash
                }
                continue
            }
            guard let key = above.key else { continue }
            if above.indent < indent || (above.indent == indent && path.last == "[]") {
                path.append(key)
                indent = above.indent
            }
        }
        self.path = path.reversed()
    }

}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let view = unicodeScalars
        guard let first = view.firstIndex(where: { !scalars.contains($0) }),
            let last = view.lastIndex(where: { !scalars.contains($0) })
        else { return "" }
        return String(view[first...last])
    }
}
