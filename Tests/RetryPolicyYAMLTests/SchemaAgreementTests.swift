import ChildProcessSupport
import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import SchemaTestSupport
import Testing

/// The JSON Schema (what editors check) and the loader (what runs) agree:
/// an independent validator (python-jsonschema, Draft 2020-12) and the
/// loader see the same corpus, and the loader never accepts a document the
/// schema rejects. The loader may reject more: what a schema cannot
/// express (declared error kinds, cycles, duplicate keys, limits).
@Suite struct SchemaAgreementTests {
    /// Documents the schema accepts and the loader rejects, each for a
    /// reason no JSON Schema can state.
    static let loaderOnly: [String: String] = [
        "invalid/duplicate-key.yaml": "JSON has no duplicate keys; PyYAML keeps the last",
        "invalid/extends-cycle-a.yaml": "cycles span files",
        "invalid/extends-cycle-b.yaml": "cycles span files",
        "invalid/extends-missing.yaml": "the extended file does not exist",
        "invalid/unknown-error-kind.yaml": "kinds must be standard or declared in the same file",
        "invalid/float-for-integer.yaml": "JSON Schema counts 4.0 as an integer",
        "hostile/overflowing-durations.yaml": "durations above 100 days match the duration pattern",
        "hostile/utf16.yaml": "PyYAML decodes UTF-16 with a byte order mark; policy files are UTF-8",
    ]

    /// Every committed policy document: shipped policies and fixtures.
    static func corpus() throws -> [(name: String, path: String)] {
        var files: [(String, String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("policies")).sorted()
        where name.hasSuffix(".yaml") && !name.hasSuffix(".tests.yaml") {
            files.append(("policies/" + name, RepositoryFiles.path("policies/" + name)))
        }
        for folder in ["valid", "invalid", "hostile"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.fixture(folder)).sorted()
            where name.hasSuffix(".yaml") {
                files.append((folder + "/" + name, RepositoryFiles.fixture(folder + "/" + name)))
            }
        }
        return files
    }

    /// The schema's verdict per path, from schema/validate.py.
    static func schemaVerdicts(for paths: [String]) throws -> [String: (valid: Bool, problems: [String])] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", RepositoryFiles.path("schema/validate.py"), "--json"] + paths
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let status = process.waitForExit()
        guard status == 0 || status == 1 else {
            throw SchemaValidatorUnavailable(
                message: """
                    schema/validate.py could not run (exit \(status)). This test needs python3 with \
                    the jsonschema and PyYAML packages: python3 -m pip install jsonschema pyyaml
                    \(errorText)
                    """)
        }
        var verdicts: [String: (Bool, [String])] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let file = object?["file"] as? String, let valid = object?["valid"] as? Bool else { continue }
            verdicts[file] = (valid, object?["problems"] as? [String] ?? [])
        }
        return verdicts
    }

    struct SchemaValidatorUnavailable: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    @Test func loaderAndSchemaAgreeOnTheCorpus() throws {
        let corpus = try Self.corpus()
        let verdicts = try Self.schemaVerdicts(for: corpus.map(\.path))
        #expect(verdicts.count == corpus.count, "the validator answered for every file")
        var schemaAccepted = 0
        var schemaRejected = 0
        for (name, path) in corpus {
            let schema = try #require(verdicts[path], "no schema verdict for \(name)")
            var loaderDiagnostics: [Diagnostic] = []
            do { _ = try PolicyLoader().loadDocument(atPath: path) } catch { loaderDiagnostics = error.diagnostics }
            let loaderAccepts = loaderDiagnostics.isEmpty
            if schema.valid { schemaAccepted += 1 } else { schemaRejected += 1 }
            // The invariant: whatever loads is schema-valid.
            if loaderAccepts {
                #expect(schema.valid, "\(name) loads but the schema rejects it: \(schema.problems)")
            }
            // And beyond it, each verdict is the expected one.
            let expectedValid = name.hasPrefix("policies/") || name.hasPrefix("valid/") || Self.loaderOnly[name] != nil
            #expect(schema.valid == expectedValid, "schema says \(schema.valid ? "valid" : "invalid") for \(name): \(schema.problems)")
            #expect(loaderAccepts == (name.hasPrefix("policies/") || name.hasPrefix("valid/")),
                    "loader \(loaderAccepts ? "accepts" : "rejects") \(name): \(loaderDiagnostics.map(\.description))")
        }
        // Neither side can pass by accepting or rejecting everything.
        #expect(schemaAccepted >= 10)
        #expect(schemaRejected >= 20)
    }

    /// Backoff sections drawn from `Backoff.Growth.fileShapes`: each
    /// shape named, left to the default or misspelled, with every set of
    /// the shapes' parameter keys, each value at the ends of its range,
    /// just outside it, or of another kind. The schema and the loader give
    /// each the same verdict, so the schema's shapes, parameters, ranges
    /// and required keys are the table's.
    @Test func backoffShapesAgreeWithTheirDescription() throws {
        let shapes = Backoff.Growth.fileShapes
        var keys: [String] = []
        for shape in shapes where !keys.contains(shape.parameter.key) { keys.append(shape.parameter.key) }
        func samples(_ values: Backoff.Growth.Values) -> [String] {
            switch values {
            case .number(let range):
                ["\(range.lowerBound)", "\(range.upperBound)", "\(range.lowerBound - 0.5)", "\(range.upperBound + 1)", "\"2\"", "1s"]
            case .duration: ["0s", "250ms", "2m", "-1s", "2", "\"\""]
            }
        }
        let valuesOf = Dictionary(shapes.map { ($0.parameter.key, $0.parameter.values) }, uniquingKeysWith: { first, _ in first })
        var sections: [String] = []
        for shapeLine in [""] + (shapes.map(\.name) + ["quadratic"]).map({ "  shape: \($0)\n" }) {
            // Every set of keys, each at its smallest value.
            for mask in 0..<(1 << keys.count) {
                let present = keys.indices.filter { mask & (1 << $0) != 0 }.map { keys[$0] }
                sections.append(shapeLine + present.map { "  \($0): \(samples(valuesOf[$0]!)[0])\n" }.joined())
            }
            // Each key alone at every sample value.
            for key in keys {
                for sample in samples(valuesOf[key]!) { sections.append(shapeLine + "  \(key): \(sample)\n") }
            }
        }
        let directory = try SchemaGeneration.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var paths: [String] = []
        for (index, section) in sections.enumerated() {
            let path = "\(directory)/backoff-\(index).yaml"
            let text = "version: 1\nname: p\nbackoff:\n  initial: 1s\n  max: 5s\n" + section
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let verdicts = try Self.schemaVerdicts(for: paths)
        var accepted = 0
        for (path, section) in zip(paths, sections) {
            let schema = try #require(verdicts[path], "no schema verdict for \(section)")
            var diagnostics: [Diagnostic] = []
            do { _ = try PolicyLoader().loadDocument(atPath: path) } catch { diagnostics = error.diagnostics }
            #expect(schema.valid == diagnostics.isEmpty,
                    "backoff:\n\(section): schema \(schema.valid ? "accepts" : "refuses") \(schema.problems), loader \(diagnostics.map(\.description))")
            if schema.valid { accepted += 1 }
        }
        // Both verdicts occur for every shape.
        #expect(accepted >= shapes.count * 3)
        #expect(sections.count - accepted >= shapes.count * 3)
    }

    @Test func theSchemaIsAValidDraft202012SchemaWithDescriptions() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.path("schema/retry-policy.schema.json")))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(schema["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let policy = try #require(definitions["policyFile"] as? [String: Any])
        let properties = try #require(policy["properties"] as? [String: Any])
        // Every top-level key of the format is described for editors.
        for key in ["version", "name", "description", "extends", "platform", "attempts", "idempotency", "backoff",
                    "retry_after", "timeouts", "endpoints", "budget", "rules", "default", "errors", "parity"] {
            #expect(properties[key] != nil, "schema lacks \(key)")
        }
        // validate.py also checks the schema against the draft 2020-12
        // meta-schema and every `examples` value against its own subschema
        // (exit 2), which fails the corpus test above with its message.
    }
}
