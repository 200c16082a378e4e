import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing
import SchemaTestSupport

/// The schema and the loader agree, shown on documents drawn from the
/// schema itself (schema/generate.py, seeded): every document the schema
/// accepts loads, unless it runs into a loader-only check of
/// schema/loader-only.json, and then it is refused with that check's id;
/// every mutant (a required key dropped, an unknown key, a wrong type, a
/// status out of range, a malformed duration) is refused by both.
@Suite struct SchemaGenerationTests {
    /// Fixed, so a failure reproduces; SCHEMA_GENERATION_SEED explores others.
    static let seed = ProcessInfo.processInfo.environment["SCHEMA_GENERATION_SEED"].flatMap { Int($0) } ?? 20_260_605

    @Test(.enabled(if: SchemaGeneration.pythonIsInstalled, SchemaGeneration.pythonMissing))
    func generatedPoliciesLoadAndMutantsAreRefused() throws {
        let records = try SchemaGeneration.records(schema: "policy", seed: Self.seed, count: 200, mutants: 30)
        let directory = try SchemaGeneration.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Generated `extends` values all name this base, which lends nothing.
        try "version: 1\nname: base\n".write(toFile: directory + "/base.yaml", atomically: true, encoding: .utf8)
        let loader = PolicyLoader()
        var tally = SchemaGeneration.Tally()
        for record in records {
            var ids: [String] = []
            do { _ = try loader.loadDocument(yaml: record.yaml, path: directory + "/generated.yaml") } catch {
                ids = error.diagnostics.compactMap(\.id)
                if ids.isEmpty { ids = ["(no diagnostic)"] }
                tally.messages[record.index] = error.diagnostics.map(\.description)
            }
            SchemaGeneration.check(record, loaderIDs: ids, tally: &tally)
        }
        tally.expectCoverage(generated: 200, mutations: ["drop-required", "unknown-key", "wrong-type", "status-out-of-range", "malformed-duration"],
                             loaderOnly: ["undeclared-error-kind", "duration-over-100-days", "undeclared-condition"])
    }

    /// docs/policy-files.md lists every loader-only check and limit of
    /// schema/loader-only.json, the list the generator predicts from.
    @Test func theDocumentationListsEveryLoaderOnlyCheck() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.path("schema/loader-only.json")))
        let listing = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let checks = try #require(listing["checks"] as? [[String: Any]])
        #expect(checks.count >= 10)
        let document = try RepositoryFiles.text("docs/policy-files.md")
        for check in checks {
            let name = try #require(check["check"] as? String)
            let id = try #require(check["diagnostic"] as? String)
            let files = try #require(check["files"] as? [String]).joined(separator: ", ")
            let generated = try #require(check["generated"] as? Bool) ? "yes" : "fixtures"
            #expect(document.contains("| `\(name)` | \(files) | \(id) | \(generated) |"),
                    "docs/policy-files.md does not list \(name) (\(files), \(id), \(generated))")
        }
        // And every schema's modeline is shown.
        let cli = try RepositoryFiles.text("docs/cli.md")
        for schema in ["retry-policy-tests", "retry-policy-settings"] {
            #expect(cli.contains("# yaml-language-server: $schema=") && cli.contains("schema/\(schema).schema.json"))
        }
    }

    /// The examples in docs/examples are valid policies, stacks and test
    /// files, except broken.yaml, which shows the loader's errors and is
    /// refused by both.
    @Test func theDocumentationExamplesAreValid() throws {
        let folder = RepositoryFiles.path("docs/examples")
        let paths = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            .filter { $0.hasSuffix(".yaml") }.map { folder + "/" + $0 }
        #expect(paths.count >= 7)
        let verdicts = try SchemaAgreementTests.schemaVerdicts(for: paths)
        for path in paths {
            let broken = path.hasSuffix("/broken.yaml")
            let schema = try #require(verdicts[path], "no schema verdict for \(path)")
            #expect(schema.valid != broken, "\(path): \(schema.problems)")
            if !path.hasSuffix(".tests.yaml") {
                #expect(Self.load(try String(contentsOfFile: path, encoding: .utf8), path: path).isEmpty != broken, "\(path)")
            }
        }
    }

    // MARK: The disagreements, settled

    static func load(_ yaml: String, path: String = "p.yaml") -> [String] {
        do {
            _ = try PolicyLoader().loadDocument(yaml: yaml, path: path)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// A duration is judged by its value: the schema's pattern allows any
    /// number of digits, and so does the loader, up to 100 days.
    @Test(arguments: [
        ("0000000000000000000001s", Duration.seconds(1)),
        ("00000000000000000000000000000000000000000002400h", .seconds(8_640_000)),
        ("1.000000000s", .seconds(1)), ("0.000000001s", .nanoseconds(1)), ("0.000001ms", .nanoseconds(1)),
        ("0.000000001h", .nanoseconds(3600)), ("2399h59m59.999999999s", .seconds(8_639_999) + .nanoseconds(999_999_999)),
    ])
    func manyDigitsAreFine(text: String, expected: Duration) throws {
        #expect(try DurationText.parse(text).get() == expected)
        #expect(Self.load("version: 1\nname: d\nbackoff: {initial: \(text)}\n") == [])
    }

    /// Past 100 days, however written, is too large (a loader-only check);
    /// finer than a nanosecond is malformed for both the schema and the
    /// loader, so a non-zero digit always means a duration above zero.
    @Test(arguments: [
        ("2400h0m0.000000001s", DurationText.ParseError.overflow), ("8640000.001s", .overflow),
        ("0000000000000000000000000000000099999999999999999999s", .overflow),
        ("1.0000000001s", .finerThanNanoseconds), ("0.0000001ms", .finerThanNanoseconds),
        ("0.0000000001h", .finerThanNanoseconds),
    ])
    func tooLargeOrTooFine(text: String, error: DurationText.ParseError) {
        #expect(throws: error) { try DurationText.parse(text).get() }
    }

    /// `per_attempt` and `total` must be above zero: the loader always said
    /// so, and now the schema does too (`positiveDuration`).
    @Test(arguments: ["0s", "00m", "0.0s", "0ms", "0h0m0s"])
    func zeroTimeoutsAreRefused(text: String) {
        for yaml in ["timeouts: {per_attempt: \(text)}", "timeouts: {total: \(text)}", "endpoints: {banner: {per_attempt: \(text)}}",
                     "endpoints: {banner: {total: \(text)}}"] {
            let messages = Self.load("version: 1\nname: z\n\(yaml)\n")
            #expect(messages.count == 1 && messages[0].contains("expected a duration above 0s") && messages[0].contains("[RP019]"),
                    "\(yaml): \(messages)")
        }
        #expect(Self.load("version: 1\nname: z\nbackoff: {initial: \(text)}\nretry_after: {cap: \(text)}\n") == [])
    }

    /// `extends` lends settings, not identity: each file writes its own
    /// `version` and `name`, as the schema requires.
    @Test func extendsDoesNotLendVersionOrName() throws {
        let directory = try SchemaGeneration.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "version: 1\nname: base\nattempts: 3\n".write(toFile: directory + "/base.yaml", atomically: true, encoding: .utf8)
        let path = directory + "/child.yaml"
        #expect(Self.load("version: 1\nname: child\nextends: base.yaml\n", path: path) == [])
        #expect(Self.load("version: 1\nextends: base.yaml\n", path: path) == [
            "\(path):1:1: error: missing required key 'name' at the top level [RP012] (\(Self.lends("name")))",
        ])
        #expect(Self.load("name: child\nextends: base.yaml\n", path: path) == [
            "\(path):1:1: error: missing required key 'version' at the top level [RP012] (\(Self.lends("version")))",
        ])
        #expect(Self.load("extends: base.yaml\nattempts: 2\n", path: path) == [
            "\(path):1:1: error: missing required key 'version' at the top level [RP012] (\(Self.lends("version")))",
            "\(path):1:1: error: missing required key 'name' at the top level [RP012] (\(Self.lends("name")))",
        ])
    }

    static func lends(_ key: String) -> String { "write it in this file too; 'extends' lends settings, not the \(key)" }
}
