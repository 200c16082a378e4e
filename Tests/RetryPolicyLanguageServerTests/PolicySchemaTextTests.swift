import Foundation
import Testing
@testable import RetryPolicyLanguageServer

@Suite("The schema the server carries, and the cursor's place in YAML")
struct PolicySchemaTextTests {
    @Test("the embedded schema is schema/retry-policy.schema.json, byte for byte")
    func embeddedSchemaIsTheFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("schema/retry-policy.schema.json")
        #expect(
            PolicySchemaText.json == (try String(contentsOf: file, encoding: .utf8)),
            "the schema changed: run scripts/embed-schema")
    }

    @Test("keys, values and descriptions are found by path, through $ref and list items")
    func schemaPaths() {
        let schema = PolicySchema.shared
        #expect(schema.keys(at: [], isStack: false).map(\.key).contains("backoff"))
        #expect(schema.keys(at: ["backoff"], isStack: false).map(\.key).contains("multiplier"))
        #expect(schema.values(at: ["backoff", "jitter"], isStack: false).contains("full"))
        #expect(schema.values(at: ["rules", "[]", "action"], isStack: false) == ["retry", "stop", "success"]
            || schema.values(at: ["rules", "[]", "action"], isStack: false).contains("retry"))
        #expect(schema.description(at: ["attempts"], isStack: false)?.hasPrefix("Every try including the first") == true)
        #expect(schema.keys(at: [], isStack: true).map(\.key).contains("max_amplification"))
        #expect(schema.node(at: ["no_such_key"], isStack: false) == nil)
    }

    @Test("the context of a line: enclosing keys, the key, and whether the cursor is in the value")
    func yamlContext() {
        let text = DocumentText("""
            version: 1
            backoff:
              initial: 1s
            rules:
              - status: 503
                action: retry
            - status: 404
              error: not_found

            """)
        #expect(YAMLContext(text: text, line: 2, column: 3) == YAMLContext(path: ["backoff"], key: "initial", inValue: false, value: "1s"))
        #expect(YAMLContext(text: text, line: 2, column: 12).inValue)
        #expect(YAMLContext(text: text, line: 4, column: 6).path == ["rules", "[]"])
        #expect(YAMLContext(text: text, line: 5, column: 6) == YAMLContext(path: ["rules", "[]"], key: "action", inValue: false, value: "retry"))
        #expect(YAMLContext(text: text, line: 7, column: 4).path == ["rules", "[]"])
        #expect(YAMLContext(text: text, line: 8, column: 0).path == [])
    }

    @Test("protocol positions count UTF-16 units; loader columns count scalars")
    func positions() {
        var text = DocumentText("name: 𝄞x\nb: 1\n")
        #expect(text.position(line: 1, column: 8) == LSPPosition(line: 0, character: 8))
        #expect(text.scalarColumn(of: LSPPosition(line: 0, character: 8)) == 8)
        text.apply("y", in: LSPRange(start: LSPPosition(line: 0, character: 8), end: LSPPosition(line: 0, character: 9)))
        #expect(text.text == "name: 𝄞y\nb: 1\n")
        text.apply("c", in: LSPRange(start: LSPPosition(line: 1, character: 0), end: LSPPosition(line: 1, character: 1)))
        #expect(text.text == "name: 𝄞y\nc: 1\n")
    }
}
