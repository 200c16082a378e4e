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

    static let imports: [(file: String, format: InteropFormat, selection: String?)] = [
        ("grpc-a6.json", .grpc, nil),
        ("envoy-route.yaml", .envoy, nil),
        ("envoy-gateway-error.yaml", .envoy, nil),
        ("istio-ratings.yaml", .istio, nil),
        ("istio-defaults.yaml", .istio, nil),
        ("resilience4j-backendA.yaml", .resilience4j, "backendA"),
        ("aws-config.ini", .awsConfig, nil),
        ("aws-config.ini", .awsConfig, "batch"),
    ]

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

    @Test("imports match their golden policies", arguments: 0..<imports.count)
    func importGolden(index: Int) throws {
        let (file, format, selection) = Self.imports[index]
        let url = Self.directory.appendingPathComponent("import").appendingPathComponent(file)
        let bytes = try [UInt8](Data(contentsOf: url))
        let imported = try Importer.importPolicy(bytes: bytes, path: file, from: format, selection: selection)
        let stem = file + (selection.map { "." + $0 } ?? "")
        try Self.compare(imported.yaml, with: url.deletingLastPathComponent().appendingPathComponent(stem + ".policy.yaml"))
        try Self.compare(Self.warningText(imported.warnings), with: url.deletingLastPathComponent().appendingPathComponent(stem + ".warnings.txt"))
        // The written policy loads, and is the policy the import stands for.
        let reloaded = try loadPolicy(imported.yaml)
        #expect(PolicyDiff.compare(reloaded, imported.policy).isIdentical)
    }

    @Test("exports match their golden configurations", arguments: InteropFormat.exportable)
    func exportGolden(format: InteropFormat) throws {
        let url = Self.directory.appendingPathComponent("export/checkout.yaml")
        let policy = try loadPolicy(String(contentsOf: url, encoding: .utf8), path: "checkout.yaml")
        let result: ExportResult
        switch format {
        case .grpc: result = GRPCExporter.export(policy, file: "checkout.yaml")
        case .envoy: result = EnvoyExporter.export(policy, file: "checkout.yaml")
        default: result = IstioExporter.export(policy, file: "checkout.yaml")
        }
        let ext = format == .grpc ? "json" : "yaml"
        try Self.compare(result.text, with: url.deletingLastPathComponent().appendingPathComponent("checkout.\(format).\(ext)"))
        try Self.compare(Self.warningText(result.warnings), with: url.deletingLastPathComponent().appendingPathComponent("checkout.\(format).warnings.txt"))
    }
}
