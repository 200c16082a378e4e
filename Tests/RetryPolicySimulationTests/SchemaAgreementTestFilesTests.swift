import ChildProcessSupport
import Foundation
import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyYAML
import Testing
import SchemaTestSupport

/// The schema of policy test files agrees with their reader, shown as for
/// policies (Tests/RetryPolicyYAMLTests/SchemaGenerationTests): documents
/// drawn from schema/retry-policy-tests.schema.json are read without a
/// problem (unless they run into a loader-only check of
/// schema/loader-only.json), and mutants are refused by the schema and the
/// reader alike.
@Suite struct SchemaAgreementTestFilesTests {
    static let seed = ProcessInfo.processInfo.environment["SCHEMA_GENERATION_SEED"].flatMap { Int($0) } ?? 20_260_523

    @Test(.enabled(if: SchemaGeneration.pythonIsInstalled, SchemaGeneration.pythonMissing))
    func generatedTestFilesParseAndMutantsAreRefused() throws {
        let records = try SchemaGeneration.records(schema: "tests", seed: Self.seed, count: 200, mutants: 30)
        var tally = SchemaGeneration.Tally()
        for record in records {
            var ids: [String] = []
            do { _ = try PolicyTestSuite(yaml: record.yaml, path: "generated.tests.yaml") } catch {
                ids = error.diagnostics.compactMap(\.id)
                if ids.isEmpty { ids = ["(no diagnostic)"] }
                tally.messages[record.index] = error.diagnostics.map(\.description)
            }
            SchemaGeneration.check(record, loaderIDs: ids, tally: &tally, consequencesAllowed: true)
        }
        tally.expectCoverage(generated: 200, mutations: ["drop-required", "unknown-key", "wrong-type", "status-out-of-range", "malformed-duration"],
                             loaderOnly: ["duration-over-100-days"])
    }

    /// Every shipped test file, and the example one, is valid under the
    /// test-file schema and parses.
    @Test(.enabled(if: SchemaGeneration.pythonIsInstalled, SchemaGeneration.pythonMissing))
    func shippedTestFilesAreValid() throws {
        var paths: [String] = []
        for folder in ["policies", "docs/examples"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: SchemaGeneration.repositoryPath(folder)).sorted()
            where name.hasSuffix(".tests.yaml") {
                paths.append(SchemaGeneration.repositoryPath(folder + "/" + name))
            }
        }
        #expect(paths.count >= 6)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", SchemaGeneration.repositoryPath("schema/validate.py")] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.waitForExit() == 0, "\(text)")
        for path in paths {
            #expect(throws: Never.self) { _ = try PolicyTestSuite(yaml: String(contentsOfFile: path, encoding: .utf8), path: path) }
        }
    }
}
