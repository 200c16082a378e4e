import RetryPolicyCore

/// The explanations of where a key or list item belongs: libyaml says
/// only that it "did not find expected key" (or '-'); the lines above say
/// which columns the line could have meant.
extension YAMLSyntaxHint {
    /// libyaml's "did not find expected key" in a block mapping.
    func unexpectedInMapping() -> Diagnostic? {
        let line = problemMark.line
        let indent = source.indentColumn(line)
        guard let found = source.character(line: line, column: problemMark.column) else { return nil }
        if problemMark.column > indent {
            return textAfterValue(found: found)
        }
        if let contextMark, contextMark.line < line,
            source.character(line: contextMark.line, column: contextMark.column) == "-",
            let next = source.character(line: contextMark.line, column: contextMark.column + 1), next != " "
        {
            // `-status: [503]` is a key named -status, not a list item.
            return missingDashSpace(line: contextMark.line, column: contextMark.column)
        }
        if found == "-" {
            if let list = dashLine(before: line), source.indentColumn(list) != indent {
                let column = source.indentColumn(list)
                return Diagnostic(
                    .yamlSyntax, at: location(problemMark),
                    "expected the list item at column \(column), aligned with the '-' on line \(list), found column \(indent)",
                    suggestion: "indent it to column \(column)")
            }
            return Diagnostic(
                .yamlSyntax, at: location(problemMark),
                "expected a key at column \(contextMark?.column ?? 1), found a list item",
                suggestion: "a list is the value of a key: indent it under the key it belongs to (key:, then '  - item')")
        }
        guard let contextMark, indent != contextMark.column else { return nil }
        let key = source.word(line: line, from: indent)
        guard Self.isPlainKey(key) else { return nil }
        var message = "expected '\(Self.abbreviated(key))' at column \(contextMark.column), aligned with the keys of the mapping on line \(contextMark.line)"
        var suggestion = "indent it to column \(contextMark.column)"
        if let above = source.previousContentLine(before: line, floor: max(contextMark.line, line - Self.maximumLookBack)),
            source.indentColumn(above) > indent
        {
            let aboveIndent = source.indentColumn(above)
            let aboveKey = source.word(line: above, from: aboveIndent + (source.character(line: above, column: aboveIndent) == "-" ? 2 : 0))
            message += ", or at column \(aboveIndent) with '\(Self.abbreviated(aboveKey))' on line \(above)"
            suggestion = "indent it to column \(aboveIndent) to keep it in the section above, or to column \(contextMark.column)"
        }
        return Diagnostic(.yamlSyntax, at: location(line: line, column: indent), message + ", found column \(indent)", suggestion: suggestion)
    }

    func missingDashSpace(line: Int, column: Int) -> Diagnostic {
        let item = source.text(line: line, from: column + 1, to: source.contentEndColumn(line))
        return Diagnostic(
            .yamlSyntax, at: location(line: line, column: column + 1),
            "expected '- ' (a dash and a space) to start a list item, found '-\(Self.abbreviated(source.word(line: line, from: column + 1)))'",
            suggestion: "write '- \(Self.abbreviated(item))'")
    }

    /// libyaml's "did not find expected '-' indicator" in a block list: a
    /// dash without its space, an item out of line with the others, or a
    /// key of an item at the wrong column.
    func unexpectedInList() -> Diagnostic? {
        guard let contextMark else { return nil }
        let line = problemMark.line
        let indent = source.indentColumn(line)
        guard let found = source.character(line: line, column: indent) else { return nil }
        if found == "-" {
            if let next = source.character(line: line, column: indent + 1), next != " " {
                return missingDashSpace(line: line, column: indent)
            }
            return Diagnostic(
                .yamlSyntax, at: location(line: line, column: indent),
                "expected the list item at column \(contextMark.column), aligned with the '-' on line \(contextMark.line), found column \(indent)",
                suggestion: "indent it to column \(contextMark.column)")
        }
        let key = source.word(line: line, from: indent)
        guard let item = itemContentColumn(before: line, dashColumn: contextMark.column, floor: contextMark.line) else {
            return Diagnostic(
                .yamlSyntax, at: location(line: line, column: indent),
                "expected a list item ('- ') at column \(contextMark.column), found '\(Self.abbreviated(key))'",
                suggestion: "start the item with '- ', aligned with the '-' on line \(contextMark.line)")
        }
        let itemKey = source.word(line: item.line, from: item.column)
        var message = "expected '\(Self.abbreviated(key))' at column \(item.column), aligned with '\(Self.abbreviated(itemKey))' of the list item on line \(item.line)"
        var suggestion = "indent it to column \(item.column) to keep it in that item, or write '- \(Self.abbreviated(key)): ...' at column \(contextMark.column) for a new item"
        if let parent = source.previousContentLine(before: contextMark.line, floor: contextMark.line - Self.maximumLookBack),
            source.indentColumn(parent) < contextMark.column, source.indentColumn(parent) < indent
        {
            // After the list, at the level of the key that holds it.
            let column = source.indentColumn(parent)
            let parentKey = source.word(line: parent, from: column)
            message += ", or at column \(column) with '\(Self.abbreviated(parentKey))' on line \(parent) (after the list)"
            suggestion += ", or to column \(column) if it follows the list"
        }
        return Diagnostic(.yamlSyntax, at: location(line: line, column: indent), message + ", found column \(indent)", suggestion: suggestion)
    }

    /// Where the content of the last item of a list (its dash at
    /// `dashColumn`) starts: the column after `- `.
    func itemContentColumn(before line: Int, dashColumn: Int, floor: Int) -> Mark? {
        var candidate = line - 1
        while candidate >= max(floor, line - Self.maximumLookBack, 1) {
            if !source.isBlankOrComment(candidate), source.indentColumn(candidate) == dashColumn,
                source.character(line: candidate, column: dashColumn) == "-"
            {
                var column = dashColumn + 1
                while source.character(line: candidate, column: column) == " " { column += 1 }
                guard source.character(line: candidate, column: column) != nil else { return nil }
                return Mark(line: candidate, column: column)
            }
            candidate -= 1
        }
        return nil
    }

    /// Where a line's content starts: after its indentation and, for a
    /// list item, after `- `.
    func contentColumn(_ line: Int) -> Int {
        var column = source.indentColumn(line)
        while source.character(line: line, column: column) == "-", source.character(line: line, column: column + 1) == " " {
            column += 1
            while source.character(line: line, column: column) == " " { column += 1 }
        }
        return column
    }

    /// The nearest line above that starts with a list item's dash.
    func dashLine(before line: Int) -> Int? {
        var candidate = line - 1
        while candidate >= max(1, line - Self.maximumLookBack) {
            if !source.isBlankOrComment(candidate), source.character(line: candidate, column: source.indentColumn(candidate)) == "-" {
                return candidate
            }
            candidate -= 1
        }
        return nil
    }
}
