import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// The node tree and YAML 1.2 core-schema resolution of plain scalars.
@Suite struct YAMLParserTests {
    func scalar(_ text: String) throws -> YAMLScalar {
        let node = try #require(try YAMLParser.parse("key: \(text)\n", path: "s.yaml"))
        guard case .scalar(let scalar) = try #require(node["key"]) else {
            Issue.record("not a scalar")
            return YAMLScalar(value: "", location: SourceLocation(file: "", line: 0, column: 0))
        }
        return scalar
    }

    @Test(arguments: [
        ("true", YAMLValue.bool(true)), ("False", .bool(false)), ("TRUE", .bool(true)),
        ("yes", .string("yes")), ("off", .string("off")), ("on", .string("on")),  // YAML 1.1 booleans are strings in 1.2
        ("null", .null), ("~", .null), ("", .null), ("Null", .null),
        ("429", .integer(429)), ("-1", .integer(-1)), ("+7", .integer(7)), ("0o17", .integer(15)), ("0x1F", .integer(31)),
        ("010", .integer(10)),  // 1.2: decimal, not octal
        ("99999999999999999999", .oversizedInteger),
        ("1.5", .float(1.5)), ("1e3", .float(1000)), (".5", .float(0.5)), ("-.inf", .float(-.infinity)),
        ("5xx", .string("5xx")), ("10s", .string("10s")), ("500-504", .string("500-504")), ("1_000", .string("1_000")),
        ("\"429\"", .string("429")), ("'true'", .string("true")),
        ("!!str 429", .string("429")), ("!!int \"429\"", .integer(429)), ("!!float 2", .float(2)),
    ])
    func plainScalarsResolveByTheCoreSchema(_ text: String, _ expected: YAMLValue) throws {
        #expect(try scalar(text).resolved == expected)
    }

    @Test func nanIsAFloat() throws {
        guard case .float(let value) = try scalar(".nan").resolved else {
            Issue.record("not a float")
            return
        }
        #expect(value.isNaN)
    }

    @Test func quotedScalarsKnowTheyAreQuoted() throws {
        #expect(try scalar("\"429\"").isQuoted)
        #expect(try !scalar("429").isQuoted)
        #expect(try scalar("'x'").style == .singleQuoted)
    }

    @Test func nodesCarryLineAndColumn() throws {
        let text = "a:\n  - b: 1\n    c: [x, \"y\"]\n"
        let root = try #require(try YAMLParser.parse(text, path: "n.yaml"))
        #expect(root.location == SourceLocation(file: "n.yaml", line: 1, column: 1))
        guard case .sequence(let items, let location) = try #require(root["a"]) else {
            Issue.record("not a sequence")
            return
        }
        #expect(location == SourceLocation(file: "n.yaml", line: 2, column: 3))
        #expect(items[0].location == SourceLocation(file: "n.yaml", line: 2, column: 5))
        #expect(items[0].entry("c")?.key.location == SourceLocation(file: "n.yaml", line: 3, column: 5))
        guard case .sequence(let flow, _) = try #require(items[0]["c"]) else {
            Issue.record("not a sequence")
            return
        }
        #expect(flow[1].location == SourceLocation(file: "n.yaml", line: 3, column: 12))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let root = try #require(try YAMLParser.parse("name: \"café\"\nnext: 1\nü: [a, b]\n", path: "u.yaml"))
        guard case .sequence(let items, _) = try #require(root["ü"]) else {
            Issue.record("not a sequence")
            return
        }
        #expect(items[1].location == SourceLocation(file: "u.yaml", line: 3, column: 8))
    }

    @Test func anEmptyFileHasNoDocument() throws {
        #expect(try YAMLParser.parse("# nothing\n", path: "e.yaml").map { _ in true } == nil)
        #expect(try YAMLParser.parse("", path: "e.yaml").map { _ in true } == nil)
    }

    @Test func aStreamKeepsEveryDocumentAndDropsEmptyOnes() throws {
        let documents = try YAMLParser.parseDocuments(bytes: Array("a: 1\n---\nb: 2\n---\n".utf8), path: "s.yaml")
        #expect(documents.count == 2)
        #expect(documents[1].location.line == 3)
        #expect(try YAMLParser.parseDocuments(bytes: [], path: "s.yaml").isEmpty)
        #expect(throws: PolicyLoadError.self) { try YAMLParser.parse(bytes: Array("a: 1\n---\nb: 2\n".utf8), path: "s.yaml") }
    }
}

