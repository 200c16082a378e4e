import Foundation
import RetryPolicyCore
import Testing

/// The AWS SDKs' shared adaptive-mode tables (transcribed in
/// AdaptiveConformance/, each file naming its source), run against the
/// core's limiter.
@Suite("Adaptive mode: the AWS SDKs' cubic and end-to-end tables")
struct AdaptiveCubicConformanceTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("AdaptiveConformance")

    struct Source: Decodable { var repository: String; var path: String; var commit: String; var tolerance: Double }

    struct CubicFile: Decodable {
        struct Table: Decodable {
            struct Given: Decodable { var last_max_rate: Double; var last_throttle_time: Double }
            struct Case: Decodable { var response: String; var timestamp: Double; var calculated_rate: Double }
            var name: String
            var given: Given
            var cases: [Case]
        }
        var source: Source
        var tables: [Table]
    }

    struct EndToEndFile: Decodable {
        struct Case: Decodable {
            var response: String
            var timestamp: Double
            var measured_tx_rate: Double
            var new_token_bucket_rate: Double
        }
        var source: Source
        var cases: [Case]
    }

    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func at(_ seconds: Double) -> Timestamp {
        Timestamp(nanosecondsSince1970: Int64((seconds * 1e9).rounded()))
    }

    @Test("CUBIC: every row of the cubic tables")
    func cubic() throws {
        let file = try Self.load("cubic.json", as: CubicFile.self)
        #expect(file.tables.count == 2)
        for table in file.tables {
            var cubic = CubicRateCalculator(
                lastMaxRate: table.given.last_max_rate, lastThrottle: Self.at(table.given.last_throttle_time))
            // A throttle's input is the rate last calculated (the table's
            // own harness does the same).
            var lastRate = table.given.last_max_rate
            for (index, row) in table.cases.enumerated() {
                switch row.response {
                case "success": lastRate = cubic.rateAfterSuccess(at: Self.at(row.timestamp))
                case "throttle": lastRate = cubic.rateAfterThrottle(sendingAt: lastRate, at: Self.at(row.timestamp))
                default: Issue.record("unknown response \(row.response)")
                }
                #expect(
                    abs(lastRate - row.calculated_rate) <= file.source.tolerance,
                    "\(table.name), row \(index): \(lastRate) instead of \(row.calculated_rate)")
            }
        }
    }

    @Test("The limiter: measured send rate and fill rate after every response of the end-to-end table")
    func endToEnd() throws {
        let file = try Self.load("end-to-end.json", as: EndToEndFile.self)
        #expect(file.cases.count == 17)
        let limiter = AdaptiveRateLimiter(configuration: .aws, start: Self.at(0))
        for (index, row) in file.cases.enumerated() {
            limiter.record(throttled: row.response == "throttle", at: Self.at(row.timestamp))
            let snapshot = limiter.snapshot
            #expect(
                abs(snapshot.measuredRate - row.measured_tx_rate) <= file.source.tolerance,
                "row \(index): measured \(snapshot.measuredRate) instead of \(row.measured_tx_rate)")
            #expect(
                abs(snapshot.fillRate - row.new_token_bucket_rate) <= file.source.tolerance,
                "row \(index): fill rate \(snapshot.fillRate) instead of \(row.new_token_bucket_rate)")
        }
    }
}
