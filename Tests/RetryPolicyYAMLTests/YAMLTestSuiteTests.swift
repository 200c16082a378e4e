import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Every input of the YAML test suite (`../shared/yaml-test-suite`, with
/// libyaml's verdict on each): parsing never crashes, a syntax error is
/// reported exactly when libyaml rejects the input, and its location is
/// inside the file.
@Suite("YAML test suite inputs")
struct YAMLTestSuiteTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/yaml-test-suite")

    @Test("each input parses or fails with a located error, as libyaml decides")
    func everyInput() throws {
        guard let index = try? String(contentsOf: Self.directory.appendingPathComponent("index.tsv"), encoding: .utf8) else {
            Issue.record("\(Self.directory.path) is missing: the test reads the YAML test suite from ../shared/yaml-test-suite")
            return
        }
        var checked = 0
        for line in index.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3 else { continue }
            let id = String(fields[0])
            let libyamlFails = fields[2] == "1"
            let url = Self.directory.appendingPathComponent("cases/\(id).yaml")
            let bytes = [UInt8](try Data(contentsOf: url))
            let lineCount = bytes.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            do {
                _ = try YAMLParser.parseDocuments(bytes: bytes, path: "\(id).yaml")
                #expect(!libyamlFails, "\(id): libyaml rejects it, the parser accepted it")
            } catch {
                let syntax = error.diagnostics.filter { $0.id == "RP001" }
                if libyamlFails {
                    #expect(!syntax.isEmpty || error.diagnostics.contains { $0.id == "RP002" }, "\(id): \(error)")
                } else {
                    #expect(syntax.isEmpty, "\(id): libyaml accepts it, the parser reported \(error)")
                }
                for diagnostic in error.diagnostics {
                    #expect(diagnostic.location.line >= 1 && diagnostic.location.line <= lineCount + 1, "\(id): \(diagnostic)")
                    #expect(diagnostic.location.column >= 1, "\(id): \(diagnostic)")
                    #expect(!diagnostic.message.isEmpty)
                }
            }
            checked += 1
        }
        #expect(checked > 300)
    }
}
