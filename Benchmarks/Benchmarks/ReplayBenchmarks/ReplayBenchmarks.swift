import Benchmark
import ReplayWorkloads
import RetryPolicySimulation

/// `retry-policy replay` over a million recorded requests (an nginx log
/// of about 150 MB), streamed from the file: the target is under 10 s,
/// with memory held to the time window (at most a few model buckets and
/// the requests a deadline keeps active), not the file.
let benchmarks: @Sendable () -> Void = {
    let path = ReplayWorkloads.writeNginxLog(requests: 1_000_000)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .peakMemoryResident, .mallocCountTotal], warmupIterations: 0,
        maxDuration: .seconds(60), maxIterations: 3)

    Benchmark("replay.nginx-1M", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let run = try! ReplayWorkloads.replay(path: path)
            precondition(run.requests == 1_000_000, "replayed \(run.requests) requests")
            precondition(run.peakHeldBuckets <= 3, "held \(run.peakHeldBuckets) buckets")
            blackHole(run.attempts)
        }
    }
}
