import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Text as editors on every platform save it.
@Suite("Byte order marks, line endings, NUL and invalid UTF-8 anywhere")
struct TextEdgeTests {
    static let policy = "version: 1\nname: p\nattempts: 2\nbogus: 1\ndefault: {error: internal_error, action: stop}\n"

    func diagnostics(_ bytes: [UInt8]) -> [Diagnostic] {
        do {
            _ = try PolicyLoader().loadDocument(bytes: bytes, path: "p.yaml")
            return []
        } catch {
            return error.diagnostics
        }
    }

    @Test("a leading UTF-8 byte order mark is ignored; locations are unchanged")
    func byteOrderMark() throws {
        let plain = diagnostics(Array(Self.policy.utf8))
        let marked = diagnostics([0xEF, 0xBB, 0xBF] + Array(Self.policy.utf8))
        #expect(plain.map(\.id) == ["RP010"])
        #expect(marked == plain)
        #expect(marked.first?.location == SourceLocation(file: "p.yaml", line: 4, column: 1))
        let valid = [0xEF, 0xBB, 0xBF] + Array(Self.policy.replacingOccurrences(of: "bogus: 1\n", with: "").utf8)
        #expect(try PolicyLoader().loadPolicy(bytes: valid, path: "p.yaml").attempts == 2)
    }

    @Test("CRLF and lone CR line endings give the same lines as LF")
    func lineEndings() {
        let plain = diagnostics(Array(Self.policy.utf8))
        #expect(diagnostics(Array(Self.policy.replacingOccurrences(of: "\n", with: "\r\n").utf8)) == plain)
        #expect(SourceLines.split("a\r\nb\rc\nd").map(String.init) == ["a", "b", "c", "d"])
        #expect(SourceLines.split("\u{FEFF}a\n").map(String.init) == ["a", ""])
    }

    @Test("a NUL byte or invalid UTF-8 in a comment is RP002 at its line and column", arguments: [
        ([UInt8(0)], "a NUL byte"), ([UInt8(0xC3), 0x28], "the invalid byte 0xC3"), ([UInt8(0xFF)], "the invalid byte 0xFF"),
    ])
    func badBytesInComments(bad: [UInt8], found: String) {
        let text = Array("version: 1\nname: p\n# a comment ".utf8) + bad + Array(" here\nattempts: 1\n".utf8)
        let found2 = diagnostics(text)
        #expect(found2.count == 1)
        #expect(found2.first?.id == "RP002")
        #expect(found2.first?.location == SourceLocation(file: "p.yaml", line: 3, column: 13))
        #expect(found2.first?.message.contains(found) == true, "\(found2)")
    }

    @Test("invalid UTF-8 after CRLF lines is located on the right line")
    func badByteAfterCRLF() {
        let text = Array("version: 1\r\nname: p\r\nattempts: ".utf8) + [0xFE] + Array("\r\n".utf8)
        #expect(diagnostics(text).first?.location == SourceLocation(file: "p.yaml", line: 3, column: 11))
    }
}
