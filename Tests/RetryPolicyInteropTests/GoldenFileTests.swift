import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import Testing

/// Every file under Golden/import is imported and compared with the
/// policy and warnings stored beside it; every policy under Golden/export
/// is exported to each target and compared likewise. Set
/// INTEROP_GOLDEN_UPDATE=1 to rewrite the expected files (then review the
/// diff).
@Suite("Golden files")
struct GoldenFileTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let update = ProcessInfo.processInfo.environment["INTEROP_GOLDEN_UPDATE"] == "1"

    /// One import: a foreign file under Golden/import, the selection, and
    /// the stem of its expected files (`FILE[.SELECTION]`).
    struct ImportCase: Sendable, CustomStringConvertible {
        var file: String
        var format: InteropFormat
        var selection: String?
        var stem: String { file + (selection.map { "." + $0 } ?? "") }
        var description: String { stem }
    }

    /// Every expected policy under Golden/import (`FILE[.SELECTION].policy.yaml`)
    /// with the file it comes from; the format is the registered one whose
    /// name the file's starts with (`aws-config.ini`), so a new format
    /// needs golden files and no line here.
    static let imports: [ImportCase] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("import").path)) ?? []
        let inputs = names.filter { !$0.hasSuffix(".policy.yaml") && !$0.hasSuffix(".warnings.txt") }
        return names.filter { $0.hasSuffix(".policy.yaml") }.sorted().compactMap { name in
            let stem = String(name.dropLast(".policy.yaml".count))
            guard let file = inputs.filter({ stem == $0 || stem.hasPrefix($0 + ".") }).max(by: { $0.count < $1.count }) else { return nil }
            let format = InteropFormat.allCases.filter { file.hasPrefix($0.rawValue + "-") || file.hasPrefix($0.rawValue + ".") }
                .max { $0.rawValue.count < $1.rawValue.count }
            guard let format else { return nil }
            return ImportCase(file: file, format: format, selection: stem == file ? nil : String(stem.dropFirst(file.count + 1)))
        }
    }()

    @Test("every expected policy has its foreign file, and every format has a golden import")
    func everyFormatHasAGoldenImport() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.appendingPathComponent("import").path)
        #expect(Self.imports.count == names.filter { $0.hasSuffix(".policy.yaml") }.count, "an expected policy without its input or format")
        for format in InteropFormat.allCases {
            #expect(Self.imports.contains { $0.format == format }, "no golden import for \(format)")
        }
    }

    static func compare(_ actual: String, with url: URL) throws {
        if update {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        #expect(actual == expected, "\(url.lastPathComponent) differs:\n\(actual)")
    }

    static func warningText(_ warnings: [InteropWarning]) -> String {
        warnings.map { "\($0.location.line):\($0.location.column): \($0.message) [\($0.feature)]\n" }.joined()
    }

    @Test("imports match their golden policies", arguments: imports)
    func importGolden(_ golden: ImportCase) throws {
        let url = Self.directory.appendingPathComponent("import").appendingPathComponent(golden.file)
        let bytes = try [UInt8](Data(contentsOf: url))
        let imported = try Importer.importPolicy(bytes: bytes, path: golden.file, from: golden.format, selection: golden.selection)
        try Self.compare(policyFile(imported), with: url.deletingLastPathComponent().appendingPathComponent(golden.stem + ".policy.yaml"))
        try Self.compare(Self.warningText(imported.warnings), with: url.deletingLastPathComponent().appendingPathComponent(golden.stem + ".warnings.txt"))
        // The written policy loads, and is the policy the import stands for.
        let reloaded = try loadPolicy(policyFile(imported))
        #expect(PolicyDiff.compare(reloaded, imported.policy).isIdentical)
    }

    /// Holds for the stored files whatever their formatting: a golden file
    /// rewritten in another layout must still be the same policy.
    @Test("every stored golden policy loads as the policy its import stands for", arguments: imports)
    func storedGoldenIsTheImportedPolicy(_ golden: ImportCase) throws {
        let directory = Self.directory.appendingPathComponent("import")
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(golden.file)))
        let imported = try Importer.importPolicy(bytes: bytes, path: golden.file, from: golden.format, selection: golden.selection)
        let stored = try String(contentsOf: directory.appendingPathComponent(golden.stem + ".policy.yaml"), encoding: .utf8)
        let loaded = try loadPolicy(stored, path: golden.stem + ".policy.yaml")
        let diff = PolicyDiff.compare(loaded, imported.policy)
        #expect(diff.isIdentical, "\(golden.stem): \(diff)")
        let policy = imported.policy
        #expect(loaded.name == policy.name && loaded.attempts == policy.attempts && loaded.description == policy.description)
        #expect(loaded.backoff.growth == policy.backoff.growth && loaded.backoff.jitter == policy.backoff.jitter)
        #expect(loaded.backoff.initial == policy.backoff.initial && (loaded.backoff.max ?? Backoff.ceiling) == (policy.backoff.max ?? Backoff.ceiling))
        #expect(loaded.timeouts.perAttempt == policy.timeouts.perAttempt && loaded.timeouts.total == policy.timeouts.total)
        #expect(loaded.hedging?.delay == policy.hedging?.delay && loaded.retryAfter.headers == policy.retryAfter.headers)
        #expect(loaded.budget?.capacity == policy.budget?.capacity && loaded.budget?.rules == policy.budget?.rules)
        #expect(loaded.rules.map(\.statuses) == policy.rules.map(\.statuses) && loaded.rules.map(\.action) == policy.rules.map(\.action))
    }

    /// The policies under Golden/export: `checkout` (a token bucket) and
    /// `mesh` (a ratio budget).
    static let exportedPolicies = ["checkout", "mesh"]

    @Test("exports match their golden configurations", arguments: InteropFormat.exportable)
    func exportGolden(format: InteropFormat) throws {
        for name in Self.exportedPolicies {
            let url = Self.directory.appendingPathComponent("export/\(name).yaml")
            let policy = try loadPolicy(String(contentsOf: url, encoding: .utf8), path: "\(name).yaml")
            let result = try #require(format.handler.export(policy, file: "\(name).yaml"))
            let ext = format == .grpc ? "json" : "yaml"
            try Self.compare(result.text, with: url.deletingLastPathComponent().appendingPathComponent("\(name).\(format).\(ext)"))
            try Self.compare(Self.warningText(result.warnings), with: url.deletingLastPathComponent().appendingPathComponent("\(name).\(format).warnings.txt"))
        }
    }
}
