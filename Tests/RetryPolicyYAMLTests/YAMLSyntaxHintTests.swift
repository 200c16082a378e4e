import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// YAML syntax errors are located at the mistake (not where libyaml gave
/// up, often the line after) and say what was expected and how to fix it.
@Suite("YAML syntax errors at the mistake, with a fix")
struct YAMLSyntaxHintTests {
    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var text: String
        var line: Int
        var column: Int
        /// Words the message must hold.
        var message: String
        /// Words the suggestion must hold.
        var suggestion: String
        var id = "RP001"

        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "key dedented out of its section",
            text: "version: 1\nname: x\nbackoff:\n    initial: 1s\n  max: 5s\n",
            line: 5, column: 3, message: "expected 'max' at column 1", suggestion: "indent it to column 5 to keep it in the section above"),
        Case(
            name: "key dedented out of a list item's section",
            text: "rules:\n  - status: [503]\n    backoff:\n      initial: 1s\n     max: 5s\n",
            line: 5, column: 6, message: "or at column 7 with 'initial' on line 4", suggestion: "indent it to column 7"),
        Case(
            name: "key without its colon (libyaml stops on the next line)",
            text: "version: 1\nname x\nrules: []\n",
            line: 2, column: 5, message: "expected ':' after the key 'name'", suggestion: "write 'name: x'"),
        Case(
            name: "nested key without its colon (read as one value with the next line)",
            text: "version: 1\nbackoff:\n  initial 1s\n  max: 5s\n",
            line: 3, column: 10, message: "expected ':' after the key 'initial'", suggestion: "write 'initial: 1s'"),
        Case(
            name: "list item key without its colon",
            text: "rules:\n  - status [503]\n    action: retry\n",
            line: 2, column: 11, message: "expected ':' after the key 'status'", suggestion: "write 'status: [503]'"),
        Case(
            name: "colon without a space",
            text: "version: 1\nname:x\nrules: []\n",
            line: 2, column: 6, message: "expected ': ' (a colon and a space) after the key 'name'", suggestion: "write 'name: x'"),
        Case(
            name: "tab in indentation",
            text: "version: 1\nbackoff:\n\tinitial: 1s\n",
            line: 3, column: 1, message: "expected spaces for indentation, found a tab", suggestion: "indent with spaces"),
        Case(
            name: "tab after spaces in indentation",
            text: "backoff:\n  initial: 1s\n  \tmax: 2s\n",
            line: 3, column: 3, message: "found a tab", suggestion: "indent with spaces"),
        Case(
            name: "unclosed [ (libyaml stops at the next key)",
            text: "version: 1\nrules:\n  - status: [429, 503\n    action: stop\n",
            line: 3, column: 22, message: "expected ']' to close the list opened at line 3, column 13", suggestion: "add ']' at the end of line 3"),
        Case(
            name: "unclosed { (libyaml stops at the next key)",
            text: "version: 1\nbackoff: {initial: 1s, max: 5s\nname: x\n",
            line: 2, column: 31, message: "expected '}' to close the mapping opened at line 2, column 10", suggestion: "add '}' at the end of line 2"),
        Case(
            name: "unclosed [ before comments and blank lines",
            text: "a: [1, 2\n# a comment\n\nb: 1\n",
            line: 1, column: 9, message: "expected ']'", suggestion: "add ']' at the end of line 1"),
        Case(
            name: "unquoted colon inside a plain value",
            text: "version: 1\ndescription: a: b\nname: x\n",
            line: 2, column: 15, message: "found a second ': ' in the value of 'description'", suggestion: #"quote the value: description: "a: b""#),
        Case(
            name: "key indented under a key that has a value",
            text: "name: x\n  description: y\nversion: 1\n",
            line: 2, column: 3, message: "expected 'description' at column 1, aligned with 'name' on line 1", suggestion: "indent it to column 1"),
        Case(
            name: "list item key misaligned",
            text: "version: 1\nrules:\n  - status: [503]\n   action: retry\n",
            line: 4, column: 4, message: "expected 'action' at column 5, aligned with 'status' of the list item on line 3",
            suggestion: "indent it to column 5"),
        Case(
            name: "key after a list at the list's column",
            text: "rules:\n  - status: [503]\n    action: retry\n  backoff:\n    initial: 1s\n",
            line: 4, column: 3, message: "or at column 1 with 'rules' on line 1 (after the list)", suggestion: "or to column 1 if it follows the list"),
        Case(
            name: "list item misaligned",
            text: "version: 1\nrules:\n  - status: [503]\n    action: retry\n   - status: [429]\n",
            line: 5, column: 4, message: "expected the list item at column 3, aligned with the '-' on line 3", suggestion: "indent it to column 3"),
        Case(
            name: "top-level list item misaligned",
            text: "rules:\n- status: [503]\n  action: retry\n - status: [429]\n",
            line: 4, column: 2, message: "expected the list item at column 1, aligned with the '-' on line 2", suggestion: "indent it to column 1"),
        Case(
            name: "dash without its space after an item",
            text: "rules:\n  - status: [503]\n  -action: retry\n",
            line: 3, column: 4, message: "expected '- ' (a dash and a space) to start a list item, found '-action'", suggestion: "write '- action: retry'"),
        Case(
            name: "dash without its space on the first item",
            text: "rules:\n  -status: [503]\n    action: retry\n",
            line: 2, column: 4, message: "found '-status'", suggestion: "write '- status: [503]'"),
        Case(
            name: "double quote never closed",
            text: "version: 1\nname: \"abc\nrules: []\n",
            line: 2, column: 7, message: "expected a closing \" for the string that starts here, found the end of the file", suggestion: "close the string"),
        Case(
            name: "double quote closed lines later",
            text: "name: \"abc\nrules: \"x\"\nversion: 1\n",
            line: 1, column: 7, message: "expected a closing \" on this line, found the string running on to line 2", suggestion: "close the string on its own line"),
        Case(
            name: "single quote inside a single-quoted string",
            text: "name: 'it's'\nversion: 1\n",
            line: 1, column: 10, message: "expected the end of the value at this closing '", suggestion: "write '' for a quote inside a single-quoted string"),
        Case(
            name: "unknown escape in a double-quoted string",
            text: "description: \"C:\\path\"\n",
            line: 1, column: 17, message: "found an unknown escape", suggestion: "write \\\\ for a backslash"),
        Case(
            name: "reserved character starting a value",
            text: "version: 1\nname: @team\n",
            line: 2, column: 7, message: "found '@', which YAML reserves", suggestion: #"quote the value: name: "@team""#),
        Case(
            name: "no-break space after a colon",
            text: "version: 1\nname:\u{00A0}x\nrules: []\n",
            line: 2, column: 6, message: "found a no-break space (U+00A0)", suggestion: "replace it with a space"),
        Case(
            name: "unmatched closing bracket",
            text: "status: [503]]\n",
            line: 1, column: 14, message: "found an unmatched ']'", suggestion: "remove it"),
        Case(
            name: "byte order mark starting a line inside the file",
            text: "version: 1\n\u{FEFF}name: x\n",
            line: 2, column: 1, message: "found a byte order mark (U+FEFF) at the start of a line", suggestion: "delete it", id: "RP002"),
        Case(
            name: "control character",
            text: "version: 1\nname: a\u{07}b\n",
            line: 2, column: 8, message: "found the control character U+0007", suggestion: "delete it"),
    ]

    @Test("each kind of mistake is located at its line and column, with a fix", arguments: cases)
    func located(_ example: Case) throws {
        let error = try #require(throws: PolicyLoadError.self) { try YAMLParser.parse(example.text, path: "p.yaml") }
        let diagnostic = try #require(error.diagnostics.first)
        #expect(error.diagnostics.count == 1, "\(error)")
        #expect(diagnostic.id == example.id, "\(diagnostic)")
        #expect(diagnostic.location.line == example.line && diagnostic.location.column == example.column, "\(diagnostic)")
        #expect(diagnostic.message.contains(example.message), "\(diagnostic)")
        #expect(diagnostic.suggestion?.contains(example.suggestion) == true, "\(diagnostic)")
    }

    @Test("a duplicate key is reported at its second occurrence, naming the first")
    func duplicateKey() throws {
        let error = try #require(throws: PolicyLoadError.self) { try YAMLParser.parse("version: 1\nname: a\nname: b\n", path: "p.yaml") }
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.id == "RP006" && diagnostic.location.line == 3 && diagnostic.location.column == 1)
        #expect(diagnostic.message.contains("first at line 2, column 1") && diagnostic.suggestion != nil)
    }

    @Test("a byte order mark before a later document of a stream is refused at it, as libyaml refuses it")
    func byteOrderMarkBeforeADocument() throws {
        let error = try #require(throws: PolicyLoadError.self) {
            try YAMLParser.parseDocuments(bytes: Array("a: 1\n...\n\u{FEFF}---\nb: 2\n".utf8), path: "s.yaml")
        }
        #expect(error.diagnostics.first?.id == "RP002" && error.diagnostics.first?.location.line == 3, "\(error)")
    }

    @Test("an error libyaml reports at line 1 of a long file's mapping costs time linear in the file")
    func longFileStaysLinear() throws {
        // 40,000 keys of one mapping, then a key dedented out of a
        // section: every explanation looks up from the last line.
        var text = "root:\n"
        for index in 0..<40_000 { text += "  key\(index): value\n" }
        text += "  section:\n    inner: 1\n   stray: 2\n"
        var thrown: PolicyLoadError?
        let elapsed = ContinuousClock().measure {
            do throws(PolicyLoadError) { _ = try YAMLParser.parse(text, path: "long.yaml") } catch { thrown = error }
        }
        let diagnostic = try #require(thrown?.diagnostics.first)
        #expect(diagnostic.location.line == 40_004 && diagnostic.location.column == 4, "\(diagnostic)")
        #expect(diagnostic.message.contains("or at column 5 with 'inner' on line 40003"), "\(diagnostic)")
        #expect(elapsed < .seconds(10), "\(elapsed)")
    }
}
