import PropertyBased
import RetryPolicyCore
import Testing

@Suite("Text from files, made safe to print")
struct DisplayTextTests {
    @Test("plain text is returned unchanged, tabs included")
    func plain() {
        for text in ["", "policies/tmdb.yaml", "retries 503 twice", "a\tb", "naïve 日本語 ✓", "a::b", "# heading [x]"] {
            #expect(DisplayText.escaped(text) == text)
        }
    }

    @Test(
        "terminal controls, line breaks and bidi controls become visible escapes",
        arguments: [
            ("x\u{1B}]0;title\u{07}", "x\\u{1B}]0;title\\u{7}"),
            ("a\r\nb", "a\\u{D}\\u{A}b"),
            ("a\u{85}b\u{2028}c\u{2029}", "a\\u{85}b\\u{2028}c\\u{2029}"),
            ("\u{9B}31m", "\\u{9B}31m"),
            ("abc\u{202E}lmth.exe", "abc\\u{202E}lmth.exe"),
            ("\u{2066}x\u{2069}\u{200F}\u{061C}", "\\u{2066}x\\u{2069}\\u{200F}\\u{61C}"),
            ("\u{FEFF}name", "\\u{FEFF}name"),
            ("nul\u{0}", "nul\\u{0}"),
            ("del\u{7F}", "del\\u{7F}"),
        ])
    func controls(input: String, expected: String) {
        #expect(DisplayText.escaped(input) == expected)
    }

    @Test("tabs are escaped when asked")
    func tabs() {
        #expect(DisplayText.escaped("a\tb", keepingTabs: false) == "a\\u{9}b")
    }

    @Test("no text can become a GitHub Actions workflow command")
    func workflowCommands() {
        #expect(DisplayText.escaped("::error file=x::forged") == ":\\u{3A}error file=x::forged")
        #expect(DisplayText.escaped("  \t::add-mask::x") == "  \t:\\u{3A}add-mask::x")
        #expect(DisplayText.escaped("note ##[error]forged") == "note ##\\u{5B}error]forged")
        #expect(DisplayText.escaped("x\n::error::y") == "x\\u{A}::error::y")
        #expect(DisplayText.escaped("a::b") == "a::b")
    }

    @Test("escaping is idempotent: text shown once and shown again reads the same")
    func idempotent() {
        for text in ["::error::x", "  ::a", "x\u{1B}[2J\r\n##[error]", "\u{202E}a::b"] {
            let once = DisplayText.escaped(text)
            #expect(DisplayText.escaped(once) == once)
        }
    }

    @Test("several lines: the line feeds stay, each line is escaped on its own")
    func lines() {
        #expect(DisplayText.escapedLines("a.yaml: bad\n::error::x\n  ##[warning]y\r\n\u{1B}[2J") == "a.yaml: bad\n:\\u{3A}error::x\n  ##\\u{5B}warning]y\\u{D}\\u{A}\\u{1B}[2J")
        #expect(DisplayText.escapedLines("one line") == "one line")
        #expect(DisplayText.escapedLines("a\n\nb\n") == "a\n\nb\n")
    }

    /// A line the GitHub runner would act on: after leading white space it
    /// starts with `::`, or it holds `##[` anywhere.
    static func isWorkflowCommand(_ line: Substring) -> Bool {
        line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("::") || line.contains("##[")
    }

    @Test("property: escaped text is one line, holds no control character, and starts no workflow command")
    func property() async {
        let alphabet: [Unicode.Scalar] = [
            "a", " ", "\t", ":", "#", "[", "\u{1B}", "\n", "\r", "\u{85}", "\u{2028}", "\u{202E}", "\u{2067}",
            "\u{9B}", "\u{7F}", "\u{0}", "\u{FEFF}", "\\", "u", "{", "}", "é",
        ]
        await propertyCheck(count: 500, input: Gen.int(in: 0...alphabet.count - 1).array(of: 0...24)) { indices in
            var text = ""
            for index in indices { text.unicodeScalars.append(alphabet[index]) }
            let shown = DisplayText.escaped(text)
            #expect(!shown.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }))
            #expect(!Self.isWorkflowCommand(Substring(shown)))
            // Whatever a report puts before it (spaces or a prefix), no line
            // of its own starts: the text holds no line break.
            #expect(!Self.isWorkflowCommand(Substring("  " + shown)))
            if !text.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }) && !Self.isWorkflowCommand(Substring(text)) {
                #expect(shown == text)
            }
        }
    }
}
