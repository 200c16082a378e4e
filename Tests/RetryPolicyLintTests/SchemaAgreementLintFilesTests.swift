import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import Testing
import SchemaTestSupport

/// The schema of lint settings files agrees with their reader, shown as for
/// policies (Tests/RetryPolicyYAMLTests/SchemaGenerationTests): documents
/// drawn from schema/retry-policy-settings.schema.json are read without a
/// problem, and mutants are refused by the schema and the reader alike.
@Suite struct SchemaAgreementLintFilesTests {
    static let seed = ProcessInfo.processInfo.environment["SCHEMA_GENERATION_SEED"].flatMap { Int($0) } ?? 20_260_523

    @Test(.enabled(if: SchemaGeneration.pythonIsInstalled, SchemaGeneration.pythonMissing))
    func generatedSettingsParseAndMutantsAreRefused() throws {
        let records = try SchemaGeneration.records(schema: "settings", seed: Self.seed, count: 100, mutants: 30)
        var tally = SchemaGeneration.Tally()
        for record in records {
            var ids: [String] = []
            do { _ = try LintConfiguration(yaml: record.yaml, path: ".retry-policy.yaml") } catch {
                ids = error.diagnostics.compactMap(\.id)
                if ids.isEmpty { ids = ["(no diagnostic)"] }
                tally.messages[record.index] = error.diagnostics.map(\.description)
            }
            SchemaGeneration.check(record, loaderIDs: ids, tally: &tally, consequencesAllowed: true)
        }
        tally.expectCoverage(generated: 100, mutations: ["unknown-key", "wrong-type"], loaderOnly: [])
    }

    /// The settings schema names exactly the rules lint knows: a new rule
    /// needs its id in the schema, or editors would underline it.
    @Test func theSettingsSchemaListsEveryRule() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: SchemaGeneration.repositoryPath("schema/retry-policy-settings.schema.json")))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let ruleID = try #require(definitions["ruleID"] as? [String: Any])
        let listed = try #require(ruleID["enum"] as? [String])
        // Lint's rules only: loader checks cannot be configured.
        let known = LintCatalog.rules.map(\.id)
        #expect(Set(listed) == Set(known), "schema: \(listed.sorted()), lint: \(known.sorted())")
        #expect(listed.count == Set(listed).count)
    }
}
