import Foundation
import PropertyBased
import RetryPolicyYAML
import Testing

@Suite("Telling a policy from other YAML by its top-level keys")
struct PolicyFileKindTests {
    static func kind(_ text: String) -> PolicyFileKind {
        PolicyFileKind.of(bytes: Array(text.utf8), path: "x.yaml")
    }

    @Test("policies and stack files, also broken ones, are policies", arguments: [
        "version: 1\nname: a\nattempts: 3\n",
        "version: 1\nname: a\nrules: []\nbogus: 1\n",
        "version: 1\nname: s\nstack:\n  - {name: one, policy: a.yaml}\n",
        "name: a\nbackoff: {initial: 1s}\n",
        "version: 1\nname: typo\nattemps: 3\nextends: [\n",
        "\u{FEFF}version: 1\nname: bom\nattempts: 2\n",
        "# yaml-language-server: $schema=../schema/retry-policy.schema.json\nname: only\n",
        "#  yaml-language-server: $schema=urn:swift-retry-policy:schema:policy-file:1\n{}\n",
    ])
    func policies(text: String) {
        #expect(Self.kind(text) == .policy)
    }

    @Test("tests files are tests files", arguments: [
        "policy: a.yaml\ncases: []\n",
        "sequences:\n  - {name: s}\n",
        "# yaml-language-server: $schema=../schema/retry-policy-tests.schema.json\npolicy: a.yaml\n",
    ])
    func testsFiles(text: String) {
        #expect(Self.kind(text) == .testsFile)
    }

    @Test("other tools' YAML is other", arguments: [
        "version: \"3.8\"\nname: shop\nservices: {web: {image: nginx}}\n",
        "apiVersion: v1\nkind: Service\n---\napiVersion: v1\nkind: ConfigMap\ndata: {version: \"1\"}\n",
        "name: CI\non: [push]\njobs: {}\n",
        "openapi: 3.1.0\ninfo: {title: x, version: 1.0.0}\npaths: {}\n",
        "replicaCount: 2\ntimeouts: {read: 5s}\nretries: 3\n",
        "- version: 1\n  rules: []\n",
        "just text\n",
        "",
        "cases: []\nrules: []\nother: 1\n",
        "[unclosed\n",
    ])
    func others(text: String) {
        #expect(Self.kind(text) == .other)
    }

    @Test("the shipped policies and tests files are recognised", arguments: ["android-sdk", "ios-sdk", "mobile-client"])
    func shipped(name: String) throws {
        let directory = String(#filePath.split(separator: "/").dropLast(3).joined(separator: "/"))
        let policy = try String(contentsOfFile: "/\(directory)/policies/\(name).yaml", encoding: .utf8)
        let tests = try String(contentsOfFile: "/\(directory)/policies/\(name).tests.yaml", encoding: .utf8)
        #expect(Self.kind(policy) == .policy)
        #expect(Self.kind(tests) == .testsFile)
    }

    @Test("property: hostile bytes never trap, and a policy's keys with any other top-level keys and version stay a policy")
    func hostileBytes() async {
        let pieces = [
            "version: 1\n", "rules: [\n", "name: x\n", "cases:\n", "- a\n", "\"q\": 1\n", "'", "\"", ":", "\n", "\r\n", "\u{FEFF}",
            "# yaml-language-server: $schema=", "retry-policy.schema", "{", "}", "[", "]", "&a ", "*a", "---\n", "\u{0}", "\u{85}",
            "  ", "\t", "é", "!!map ", "? ", "x",
        ]
        let text = Gen.int(in: 0...pieces.count - 1).array(of: 0...40).map { $0.map { pieces[$0] }.joined() }
        await propertyCheck(count: 500, input: text) { text in
            let bytes = Array(text.utf8)
            let kind = PolicyFileKind.of(bytes: bytes, path: "x.yaml")
            #expect(PolicyFileKind.of(bytes: bytes, path: "x.yaml") == kind)
            _ = PolicyFileKind.of(prefix: bytes)
        }
        let keys = Gen.int(in: 0...5).array(of: 0...4).map { Set($0.map { ["services", "kind", "on", "x-y", "spec", "data"][$0] }) }
        await propertyCheck(count: 200, input: keys) { others in
            #expect(PolicyFileKind.of(topLevelKeys: others.union(["version", "backoff"])) == .policy)
            #expect(PolicyFileKind.of(topLevelKeys: others.union(["version", "name"])) == .other, "version and name alone identify nothing")
        }
    }
}
