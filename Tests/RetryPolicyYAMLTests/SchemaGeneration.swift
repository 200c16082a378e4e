import Foundation
import Testing

/// Runs schema/generate.py and checks the loader's verdict on each record.
/// (Tests/RetryPolicyLintTests has a copy for the test-file and settings
/// schemas, whose loaders live in RetryPolicyLint.)
enum SchemaGeneration {
    struct Record: Decodable {
        let index: Int
        let kind: String
        let mutation: String?
        let `where`: String?
        let yaml: String
        let schema_valid: Bool
        let problems: [String]
        let loader_only: [String]
        let expected_ids: [String]
    }

    static let pythonIsInstalled: Bool = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return paths.contains { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }
    }()

    static let pythonMissing: Comment = "python3 is not installed: the schema-generation tests need python3 with jsonschema and PyYAML"

    struct GeneratorFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// The records for `schema` (policy, tests or settings).
    static func records(schema: String, seed: Int, count: Int, mutants: Int) throws -> [Record] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", RepositoryFiles.path("schema/generate.py"), "--schema", schema, "--seed", "\(seed)",
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
        process.waitUntilExit()
        while !errorReader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        guard process.terminationStatus == 0 else {
            throw GeneratorFailed(description: """
                schema/generate.py --schema \(schema) failed (exit \(process.terminationStatus)). It needs python3 with \
                jsonschema and PyYAML (.ci/run installs them: python3 -m pip install jsonschema pyyaml).
                \(String(decoding: errorData, as: UTF8.self))
                """)
        }
        let decoder = JSONDecoder()
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try decoder.decode(Record.self, from: Data($0.utf8))
        }
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "schema-generation-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// What was seen, to show that neither side passes by accepting or
    /// refusing everything.
    struct Tally {
        var generated = 0
        var loaded = 0
        var loaderOnly: [String: Int] = [:]
        var mutants: [String: Int] = [:]
        var messages: [Int: [String]] = [:]

        func expectCoverage(generated expected: Int, mutations: [String], loaderOnly checks: [String],
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

    /// One record against the loader's diagnostic ids (empty: it loaded).
    static func check(_ record: Record, loaderIDs ids: [String], tally: inout Tally, sourceLocation: SourceLocation = #_sourceLocation) {
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
                // Every diagnostic is one of the checks run into.
                #expect(!ids.isEmpty && ids.allSatisfy(record.expected_ids.contains),
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
}
