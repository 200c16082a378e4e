import ChildProcessSupport
import Foundation
import Testing

/// The client in `Generated/` is what swift-openapi-generator makes of
/// `Generated/openapi.yaml` today: regenerated (with the generator that
/// `scripts/openapi-generator` builds, or the one `SWIFT_OPENAPI_GENERATOR`
/// names) and compared file by file.
@Suite("OpenAPI: the committed client is the generator's output")
struct GeneratedClientIsCurrentTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Generated")
    static let root = directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("regenerating the client changes no file", .timeLimit(.minutes(30)))
    func regeneratedClientIsCommitted() throws {
        let generator = try ProcessInfo.processInfo.environment["SWIFT_OPENAPI_GENERATOR"] ?? Self.buildGenerator()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-client-\(UUID())")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let status = try Self.run(generator, [
            "generate", Self.directory.appendingPathComponent("openapi.yaml").path,
            "--config", Self.directory.appendingPathComponent("openapi-generator-config.yaml").path,
            "--output-directory", output.path,
        ])
        #expect(status.code == 0, "\(status.output)")
        let generated = try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        let committed = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        #expect(generated == committed)
        for name in generated {
            let fresh = try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8)
            let kept = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
            #expect(fresh == kept, "Generated/\(name) differs from the generator's output: regenerate it (scripts/openapi-generator)")
        }
    }

    static func buildGenerator() throws -> String {
        let status = try run(root.appendingPathComponent("scripts/openapi-generator").path, [])
        guard status.code == 0 else { throw GeneratorUnavailable(output: status.output) }
        return status.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct GeneratorUnavailable: Error, CustomStringConvertible {
        var output: String
        var description: String { "scripts/openapi-generator failed:\n\(output)" }
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (code: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-generator-\(UUID()).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let code = process.waitForExit()
        try handle.close()
        return (code, try String(contentsOf: log, encoding: .utf8))
    }
}
