import Foundation
import RetryPolicyCore
import RetryPolicySimulation

/// A recorded day of traffic for the replay benchmark: an nginx access log
/// in the timed extension of `combined`, written once to a temporary file,
/// and the policy it is replayed under.
public enum ReplayWorkloads {
    /// One request per millisecond over `count` ms, across 50 endpoints
    /// (with identifiers in their paths); between 30 % and 40 % of the
    /// way through, an outage where nginx tried three servers and got
    /// 502, 502, 503 with `Retry-After: 1`; otherwise 1 % 503s.
    public static func writeNginxLog(requests count: Int) -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("replay-bench-\(count).log").path
        if FileManager.default.fileExists(atPath: path) { return path }
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = FileHandle(forWritingAtPath: path)!
        var buffer = ""
        buffer.reserveCapacity(1 << 22)
        let outage = (count * 3 / 10)..<(count * 4 / 10)
        for index in 0..<count {
            // 17/Nov/2026:14:00:00 +0000 plus index milliseconds; nginx logs
            // whole seconds, so $request_time carries the rest.
            let seconds = index / 1000
            let hour = 14 + seconds / 3600
            let minute = seconds / 60 % 60
            let second = seconds % 60
            let time = "17/Nov/2026:\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):\(second < 10 ? "0" : "")\(second) +0000"
            let endpoint = "/v1/items/\(index % 50)/detail/\(index)"
            let status: String
            let upstream: String
            let upstreamTimes: String
            if outage.contains(index) {
                status = "503"
                upstream = "502, 502, 503"
                upstreamTimes = "0.002, 0.002, 0.001"
            } else if index % 100 == 7 {
                status = "503"
                upstream = "503"
                upstreamTimes = "0.004"
            } else {
                status = "200"
                upstream = "200"
                upstreamTimes = "0.0\(10 + index % 40)"
            }
            buffer += "10.0.\(index % 200).\(index % 250) - - [\(time)] \"GET \(endpoint)?page=\(index % 7) HTTP/1.1\" \(status) 512 \"-\" \"bench/1.0\" rt=0.0\(10 + index % 40) urt=\"\(upstreamTimes)\" us=\"\(upstream)\"\n"
            if buffer.utf8.count > 1 << 22 {
                handle.write(Data(buffer.utf8))
                buffer.removeAll(keepingCapacity: true)
            }
        }
        handle.write(Data(buffer.utf8))
        try! handle.close()
        return path
    }

    /// 429 and 5xx retried, four attempts, full jitter from 100 ms, a 10 s
    /// deadline, a retry budget shared by every request, Retry-After
    /// honoured: what a service's client would run.
    public static let policy = Policy(
        name: "bench",
        attempts: 4,
        backoff: Backoff(initial: .milliseconds(100), max: .seconds(5), multiplier: 2, jitter: .full),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(30)),
        timeouts: TimeoutBudget(perAttempt: .seconds(2), total: .seconds(10)),
        budget: .grpc(maxTokens: 100, tokenRatioThousandths: 100),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(transports: [.timeout, .connectionLost], error: .timeout, action: .retry),
        ],
        defaultRule: DefaultRule(error: .internalError, action: .stop))

    /// Replays the log at `path` under `policy`, reading it in 1 MiB
    /// chunks as the command does.
    public static func replay(path: String, policy: Policy = policy) throws -> ReplayRun {
        let handle = FileHandle(forReadingAtPath: path)!
        defer { try? handle.close() }
        let stream = RecordingStream(path: path, format: .nginx, options: RecordingOptions(keptHeaders: ["retry-after"])) {
            guard let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else { return nil }
            return [UInt8](data)
        }
        var records = TimeOrderedRecords(streams: [stream], window: .seconds(120))
        return try ReplayDriver.run(policy: policy, configuration: .init()) { try records.next() }
    }
}
