import ChildProcessSupport
import Foundation
import RetryPolicyCore
import Testing

/// botocore as the oracle of adaptive mode: random sequences of sends,
/// successes and throttling responses go through the core's limiter and
/// through botocore's own `ClientRateLimiter`
/// (AdaptiveConformance/botocore_oracle.py, on a clock it is handed), and
/// every wait, fill rate and measured rate must agree.
@Suite("Adaptive mode agrees with botocore")
struct AdaptiveBotocoreDifferentialTests {
    /// Both sides compute in binary floating point, the Swift side on
    /// integer nanoseconds and botocore on float seconds: they differ in
    /// the last bits only.
    static let relativeTolerance = 1e-6
    static let absoluteTolerance = 1e-6

    enum Event: String { case send, success, `throttle` }

    struct Scenario {
        var events: [(gap: Int64, event: Event)]
    }

    /// Phases of calm and of heavy throttling, gaps from a millisecond to
    /// half a second with odd nanoseconds, so that no event lands on a
    /// measurement bucket's edge (where float seconds and integer
    /// nanoseconds could round to different buckets).
    static func scenario(seed: UInt64, count: Int) -> Scenario {
        var random = SplitMix64(seed: seed)
        var events: [(gap: Int64, event: Event)] = []
        var throttleChance = 0.1
        for index in 0..<count {
            if index % 60 == 0 { throttleChance = [0.0, 0.05, 0.3, 0.8].randomElement(using: &random)! }
            let gap = Int64.random(in: 1_000_000...500_000_000, using: &random) | 1
            let event: Event =
                Bool.random(using: &random)
                ? .send : (Double.random(in: 0..<1, using: &random) < throttleChance ? .throttle : .success)
            events.append((gap, event))
        }
        return Scenario(events: events)
    }

    /// The Swift side: per event, the wait of a send or the rates after a
    /// response.
    static func swiftResults(_ scenario: Scenario) -> [[Double]] {
        let limiter = AdaptiveRateLimiter(configuration: .aws, start: Timestamp(nanosecondsSince1970: 0))
        var now: Int64 = 0
        var results: [[Double]] = []
        for (gap, event) in scenario.events {
            now += gap
            switch event {
            case .send:
                switch limiter.admit(at: Timestamp(nanosecondsSince1970: now)) {
                case .send: results.append([0])
                case .wait(let wait):
                    results.append([Double(wait.nanosecondsSaturatedForTests) / 1e9])
                    now += wait.nanosecondsSaturatedForTests
                case .refuse: results.append([-1])
                }
            case .success, .throttle:
                limiter.record(throttled: event == .throttle, at: Timestamp(nanosecondsSince1970: now))
                let snapshot = limiter.snapshot
                results.append([snapshot.fillRate, snapshot.measuredRate])
            }
        }
        return results
    }

    static func botocoreResults(_ scenarios: [Scenario]) throws -> [[[Double]]]? {
        guard let python = python() else { return nil }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("AdaptiveConformance/botocore_oracle.py").path
        var all: [[[Double]]] = []
        for scenario in scenarios {
            let payload: [String: Any] = [
                "start": 0.0,
                "events": scenario.events.map { ["gap": Double($0.gap) / 1e9, "event": $0.event.rawValue] },
            ]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script]
            let input = Pipe()
            let output = Pipe()
            let errors = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: payload))
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let stderr = errors.fileHandleForReading.readDataToEndOfFile()
            guard process.waitForExit() == 0,
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
                let rows = object["results"] as? [[String: Double]]
            else {
                Issue.record(
                    "botocore oracle failed (scripts/test installs botocore): \(String(decoding: stderr.suffix(2000), as: UTF8.self))"
                )
                return nil
            }
            all.append(rows.map { row in row["delay"].map { [$0] } ?? [row["fill_rate"] ?? .nan, row["measured_rate"] ?? .nan] })
        }
        return all
    }

    static func python() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func agree(_ swift: Double, _ botocore: Double) -> Bool {
        abs(swift - botocore) <= absoluteTolerance + relativeTolerance * abs(botocore)
    }

    @Test("Waits, fill rates and measured rates agree on 24 random sequences of 400 events")
    func agreesWithBotocore() throws {
        let scenarios = (0..<24).map { Self.scenario(seed: UInt64($0) &* 0x9E37_79B9 &+ 7, count: 400) }
        guard let oracle = try Self.botocoreResults(scenarios) else {
            Issue.record("python3 with botocore is needed: botocore decides what adaptive mode does")
            return
        }
        var waits = 0
        var throttles = 0
        for (index, scenario) in scenarios.enumerated() {
            let swift = Self.swiftResults(scenario)
            try #require(swift.count == oracle[index].count)
            for (row, (mine, theirs)) in zip(swift, oracle[index]).enumerated() {
                let matches = mine.count == theirs.count && zip(mine, theirs).allSatisfy { Self.agree($0, $1) }
                #expect(matches, "scenario \(index), event \(row) (\(scenario.events[row].event)): \(mine) versus botocore's \(theirs)")
                if !matches { return }
                if mine.count == 1, mine[0] > 0 { waits += 1 }
            }
            throttles += scenario.events.filter { $0.event == .throttle }.count
        }
        // The sequences exercise what they are meant to: waits and throttles.
        #expect(waits > 100)
        #expect(throttles > 100)
    }
}

extension Duration {
    /// Whole nanoseconds (the test's waits are far below the 292-year limit).
    fileprivate var nanosecondsSaturatedForTests: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
