import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

@testable import RetryPolicySimulation

/// Storm reports are a function of the policy, the configuration and the
/// seed: every case in `StormGolden/cases.tsv` (each shipped policy, the
/// starter policy `init` writes, a hedged and a cooling-down policy, with
/// shared and per-client state, spreads, latencies and windows) must
/// report exactly what `StormGolden/generate` recorded, text and JSON.
@Suite("Storm reports against recorded ones")
struct StormGoldenTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("StormGolden")
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Case: CustomTestStringConvertible, Sendable {
        var id: String
        var policyPath: String
        var configuration: OutageStorm.Configuration
        var testDescription: String { id }
    }

    static let cases: [Case] = {
        guard let table = try? String(contentsOf: directory.appendingPathComponent("cases.tsv"), encoding: .utf8) else {
            return []
        }
        return table.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func duration(_ text: String) -> Duration { try! DurationText.parse(text).get() }
            let configuration = OutageStorm.Configuration(
                clients: Int(fields[2])!, outage: duration(fields[3]),
                outageResponse: try! ScriptedResponse.parse(fields[4]).get(), spread: duration(fields[5]),
                latency: duration(fields[6]), window: duration(fields[7]), shared: fields[8] == "yes",
                seed: UInt64(fields[9])!)
            return Case(id: fields[0], policyPath: fields[1], configuration: configuration)
        }
    }()

    @Test("the case table is there and covers every shipped policy")
    func table() throws {
        #expect(Self.cases.count >= 100)
        let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("policies").path)
            .filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".tests.yaml") }
        #expect(!shipped.isEmpty)
        for name in shipped {
            #expect(Self.cases.contains { $0.policyPath == "policies/\(name)" }, "\(name) has no storm case")
        }
    }

    @Test("the report is the recorded one", arguments: cases)
    func report(_ golden: Case) throws {
        let policy = try PolicyLoader().loadPolicy(atPath: Self.root.appendingPathComponent(golden.policyPath).path)
        let report = StormReport.run(policy: policy, configuration: golden.configuration)
        let text = try String(contentsOf: Self.directory.appendingPathComponent("\(golden.id).txt"), encoding: .utf8)
        let json = try String(contentsOf: Self.directory.appendingPathComponent("\(golden.id).json"), encoding: .utf8)
        #expect(report.text == text)
        #expect(report.json.rendered() + "\n" == json)
    }
}
