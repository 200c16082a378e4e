import Foundation
import PropertyBased
import RetryPolicyCore
import Testing

/// JSON reports keep the exact text of names from files, yet the document
/// printed on a terminal or in a CI log must hold nothing that steers it.
@Suite("JSON strings: exact text back, nothing raw that steers a terminal or CI log")
struct JSONValueStringTests {
    @Test("controls, separators, bidi controls and the '[' of '##[' are \\u escapes")
    func escapes() {
        let text = "a\u{1B}[2J\u{7F}\u{9B}\u{2028}\u{202E}\u{FEFF} ##[error]x ::y"
        #expect(
            JSONValue.string(text).rendered()
                == #""a\u001b[2J\u007f\u009b\u2028\u202e\ufeff ##\u005berror]x ::y""#)
        #expect(JSONValue.string("naïve [x] # é").rendered() == "\"naïve [x] # é\"")
    }

    @Test("property: any text round-trips exactly, and the document holds no raw unsafe character or '##['")
    func roundTrip() async throws {
        let alphabet: [Unicode.Scalar] = [
            "a", " ", "\t", ":", "#", "[", "\"", "\\", "\u{1B}", "\n", "\r", "\u{85}", "\u{2028}", "\u{202E}", "\u{2067}",
            "\u{9B}", "\u{7F}", "\u{0}", "\u{FEFF}", "é", "😀",
        ]
        await propertyCheck(count: 300, input: Gen.int(in: 0...alphabet.count - 1).array(of: 0...24)) { indices in
            var text = ""
            for index in indices { text.unicodeScalars.append(alphabet[index]) }
            let rendered = JSONValue.array([.string(text)]).rendered()
            // Line feeds are the indented layout's own.
            #expect(!rendered.unicodeScalars.contains(where: { $0 != "\n" && DisplayText.isUnsafe($0) }))
            #expect(!rendered.contains("##["))
            let decoded = try? JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String]
            #expect(decoded == [text])
        }
    }
}
