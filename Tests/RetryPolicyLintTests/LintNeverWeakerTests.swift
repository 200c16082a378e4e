import Foundation
import PropertyBased
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import Testing

/// Lint is the gate in CI: whatever it passes, the loader (and so the
/// executor and `PolicyStore`) must accept, however hard a file tries to
/// silence it. Each document is linted with every rule id suppressed in
/// the file and every RP1xx rule turned off in the settings.
@Suite("Lint is never weaker than the loader")
struct LintNeverWeakerTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let everyID = (LoaderRule.allCases.map(\.id) + LintCatalog.rules.map(\.id)).joined(separator: ",")

    static let allOff = LintConfiguration(severities: Dictionary(uniqueKeysWithValues: LintCatalog.rules.map { ($0.id, Diagnostic.Severity?.none) }))

    /// Every document the loader's tests and the repository hold.
    static let documents: [(name: String, text: String)] = {
        var result: [(String, String)] = []
        let fixtures = repository + "/Tests/RetryPolicyYAMLTests/Fixtures"
        for folder in ["valid", "invalid", "hostile"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures + "/" + folder)) ?? []
            for name in names.sorted() where name.hasSuffix(".yaml") {
                if let data = FileManager.default.contents(atPath: "\(fixtures)/\(folder)/\(name)") {
                    result.append(("\(folder)/\(name)", String(decoding: data, as: UTF8.self)))
                }
            }
        }
        for folder in ["policies", "docs/examples"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: repository + "/" + folder)) ?? []
            for name in names.sorted() where name.hasSuffix(".yaml") && !name.hasSuffix(".tests.yaml") {
                if let data = FileManager.default.contents(atPath: "\(repository)/\(folder)/\(name)") {
                    result.append(("\(folder)/\(name)", String(decoding: data, as: UTF8.self)))
                }
            }
        }
        return result
    }()

    /// Lints `text` (every id suppressed, every rule off) as `doc.yaml` in
    /// a folder holding copies of the valid fixtures (so `extends` works),
    /// and loads it; returns (lint passed, loader accepted).
    static func verdicts(_ text: String) throws -> (lintPassed: Bool, loaded: Bool, findings: [LintFinding]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("weaker-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for document in documents where document.name.hasPrefix("valid/") {
            try document.text.write(toFile: directory + "/" + document.name.dropFirst("valid/".count), atomically: true, encoding: .utf8)
        }
        let silenced = "# retry-policy: disable-file=\(everyID)\n" + text
        try silenced.write(toFile: directory + "/doc.yaml", atomically: true, encoding: .utf8)
        let root = try PolicyRoot(directory: directory)
        let run = LintRun(root: root, configuration: allOff)
        let report = try run.lint(paths: [directory + "/doc.yaml"])
        let loaded = (try? PolicyLoader(root: root).loadDocument(atPath: directory + "/doc.yaml")) != nil
        return (!report.fails(strict: false), loaded, report.findings)
    }

    @Test("every loader fixture, shipped policy and example: lint passes only what the loader loads")
    func fixtures() throws {
        #expect(Self.documents.count > 40, "fixtures found: \(Self.documents.count)")
        var refused = 0
        for document in Self.documents {
            let verdict = try Self.verdicts(document.text)
            if verdict.lintPassed {
                #expect(verdict.loaded, "\(document.name): lint passed, the loader refuses it")
            } else {
                refused += 1
            }
        }
        #expect(refused > 20, "the invalid fixtures must fail lint: \(refused) did")
    }

    @Test("mutated documents: lint passes only what the loader loads")
    func mutants() async throws {
        let sources = Self.documents.filter { $0.name.hasPrefix("valid/") || $0.name.hasPrefix("policies/") }
        await propertyCheck(count: 150, input: Gen.int(in: 0...1_000_000)) { seed in
            var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
            let source = sources[Int.random(in: 0..<sources.count, using: &random)]
            var lines = source.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for _ in 0..<Int.random(in: 1...3, using: &random) where !lines.isEmpty {
                let index = Int.random(in: 0..<lines.count, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: lines.remove(at: index)
                case 1: lines[index] = lines[index].replacingOccurrences(of: "a", with: "e")
                case 2: lines[index] += " # retry-policy: disable=RP010,RP011,RP013"
                case 3: lines.insert(lines[index], at: index)
                case 4: lines[index] = String(lines[index].dropLast(min(3, lines[index].count)))
                default: lines[index] = lines[index].replacingOccurrences(of: ": ", with: ": \"") + "\""
                }
            }
            let text = lines.joined(separator: "\n")
            do {
                let verdict = try Self.verdicts(text)
                if verdict.lintPassed {
                    #expect(verdict.loaded, "seed \(seed): lint passed, the loader refuses:\n\(text)")
                }
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    @Test("a settings file that names a loader check is refused with its position")
    func settingsCannotNameLoaderChecks() {
        #expect(throws: PolicyLoadError.self) {
            try LintConfiguration(yaml: "rules:\n  RP010: off\n", path: ".retry-policy.yaml")
        }
        do {
            _ = try LintConfiguration(yaml: "rules:\n  RP107: error\n  rp002: warning\n", path: ".retry-policy.yaml")
        } catch {
            #expect(error.diagnostics.map(\.location.line) == [3])
            #expect(error.diagnostics.first?.message.contains("RP002 is a loader check") == true)
        }
        // Built in code, a configuration still leaves loader findings alone.
        let configuration = LintConfiguration(severities: ["RP010": Diagnostic.Severity?.none])
        let finding = LintFinding(id: "RP010", severity: .error, location: SourceLocation(file: "p.yaml", line: 1, column: 1), message: "m")
        #expect(configuration.apply(to: [finding]) == [finding])
    }
}
