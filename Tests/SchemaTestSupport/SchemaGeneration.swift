import ChildProcessSupport
import Foundation
import Testing

/// Runs schema/generate.py and checks a reader's verdict on each record:
/// the policy loader's (RetryPolicyYAMLTests), the test-file reader's
/// (RetryPolicySimulationTests) and the settings reader's
/// (RetryPolicyLintTests).
public enum SchemaGeneration {
    public struct Record: Decodable, Sendable {
        public let index: Int
        public let kind: String
        public let mutation: String?
        public let `where`: String?
        public let yaml: String
        public let schema_valid: Bool
        public let problems: [String]
        public let loader_only: [String]
        public let expected_ids: [String]
    }

    public static let pythonIsInstalled: Bool = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
    }()

    public static let pythonMissing: Comment = "python3 is not installed: the schema-generation tests need python3 with jsonschema and PyYAML"

    public struct GeneratorFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// The records for `schema` (policy, tests or settings).
    public static func records(schema: String, seed: Int, count: Int, mutants: Int) throws -> [Record] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", repositoryPath("schema/generate.py"), "--schema", schema, "--seed", "\(seed)",
                             "--count", "\(count)", "--mutants", "\(mutants)"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both pipes while the generator runs, so neither fills up.
        nonisolated(unsafe) var errorData = Data()
        let errorReader = Thread { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let status = process.waitForExit()
        while !errorReader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        guard status == 0 else {
            throw GeneratorFailed(description: """
                schema/generate.py --schema \(schema) failed (exit \(status)). It needs python3 with \
                jsonschema and PyYAML (.ci/run installs them: python3 -m pip install jsonschema pyyaml).
                \(String(decoding: errorData, as: UTF8.self))
                """)
        }
        let decoder = JSONDecoder()
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try decoder.decode(Record.self, from: Data($0.utf8))
        }
    }

    public static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "schema-generation-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// What was seen, to show that neither side passes by accepting or
    /// refusing everything.
    public struct Tally: Sendable {
        public var generated = 0
        public var loaded = 0
        public var loaderOnly: [String: Int] = [:]
        public var mutants: [String: Int] = [:]
        public var messages: [Int: [String]] = [:]

        public init() {}

        public func expectCoverage(generated expected: Int, mutations: [String], loaderOnly checks: [String],
                            sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(generated == expected, sourceLocation: sourceLocation)
            // Most generated documents are plain loadable ones.
            #expect(loaded * 2 >= generated, "only \(loaded) of \(generated) generated documents load", sourceLocation: sourceLocation)
            for mutation in mutations {
                #expect(mutants[mutation, default: 0] >= 10, "too few \(mutation) mutants: \(mutants)", sourceLocation: sourceLocation)
            }
            for check in checks {
                #expect(loaderOnly[check, default: 0] >= 1, "no generated document runs into \(check): \(loaderOnly)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    /// One record against the reader's diagnostic ids (empty: it loaded).
    /// A generated document that runs into a loader-only check must be
    /// refused with exactly the expected ids, unless `consequencesAllowed`:
    /// the test-file reader adds consequences (a case whose only
    /// expectation was refused "checks nothing", RP012), so there the
    /// check's id must be among the diagnostics, not all of them.
    public static func check(
        _ record: Record, loaderIDs ids: [String], tally: inout Tally, consequencesAllowed: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let shown = """
            \(record.kind) #\(record.index)\(record.mutation.map { " (\($0) at \(record.where ?? "?"))" } ?? ""):
            \(record.yaml)schema: \(record.schema_valid ? "valid" : "invalid \(record.problems)")
            loader: \(ids.isEmpty ? "loads" : "refuses \(tally.messages[record.index] ?? ids)")
            """
        if record.kind == "generated" {
            tally.generated += 1
            #expect(record.schema_valid, "the generator drew a document its schema refuses:\n\(shown)", sourceLocation: sourceLocation)
            if record.loader_only.isEmpty {
                #expect(ids.isEmpty, "the schema accepts this document, the loader refuses it:\n\(shown)", sourceLocation: sourceLocation)
                if ids.isEmpty { tally.loaded += 1 }
            } else {
                for check in record.loader_only { tally.loaderOnly[check, default: 0] += 1 }
                #expect(consequencesAllowed
                            ? ids.contains(where: record.expected_ids.contains)
                            : !ids.isEmpty && ids.allSatisfy(record.expected_ids.contains),
                        "expected a refusal for \(record.loader_only) (\(record.expected_ids)):\n\(shown)", sourceLocation: sourceLocation)
            }
        } else {
            tally.mutants[record.mutation ?? "?", default: 0] += 1
            #expect(!record.schema_valid, "the schema accepts a mutant:\n\(shown)", sourceLocation: sourceLocation)
            #expect(!ids.isEmpty, "the loader accepts a mutant the schema refuses:\n\(shown)", sourceLocation: sourceLocation)
            #expect(ids.contains(where: record.expected_ids.contains),
                    "the loader refuses the mutant, but not with \(record.expected_ids):\n\(shown)", sourceLocation: sourceLocation)
        }
    }

    /// A file of this repository, found from this source file.
    public static func repositoryPath(_ relative: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path + "/" + relative
    }
}
