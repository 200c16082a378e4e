import Benchmark
import ExecutorWorkloads
import RetryPolicyCore
import RetryPolicyExecutor

/// The executor against seed 002's hand-written `withRetry` loop
/// (`.baseline`) and seed 003's generic `retry` function (`.baseline-seed003`),
/// on a first-try success and on a request that fails twice with 503 before
/// it succeeds. Every side waits on the same zero-delay clock, so the
/// numbers are the cost of the retry machinery alone.
///
/// The harness runs every iteration in a new task, so `executor.success`
/// and `executor.retry-3-attempts` include what a request costs in a task
/// of its own (the task allocator's first slab must hold its async
/// frames); the `-in-one-task` pairs run 1,000 requests one after another
/// in one task, as a worker loop does, and report the steady state.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 100,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    let clock = ImmediateClock()
    let executor = RetryExecutor(
        decider: RetryDecider(policy: SeedPolicy.networkingGuide), clock: clock,
        wallClockNow: Timestamp(secondsSince1970: 1_700_000_000))

    // Each pair twice: one request per iteration (a task of its own), and
    // 1,000 requests per iteration in the same task.
    let variants: [(suffix: String, scaling: BenchmarkScalingFactor)] = [("", .one), ("-in-one-task", .kilo)]
    for (suffix, scaling) in variants {
        var configuration = Benchmark.defaultConfiguration
        configuration.scalingFactor = scaling

        Benchmark("executor.success\(suffix).engine", configuration: configuration) { benchmark in
            var generator = SplitMix64(seed: 3)
            for _ in benchmark.scaledIterations {
                let response = try await executor.runConcurrently(using: &generator) { _ in StubResponse.ok }
                blackHole(response)
            }
        }
        Benchmark("executor.success\(suffix).baseline", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let response = try await withRetry(clock: clock) { try validate(StubResponse.ok) }
                blackHole(response)
            }
        }

        Benchmark("executor.success\(suffix).baseline-seed003", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let response = try await retry(clock: clock) { () throws(FailedStatus) -> StubResponse in
                    try Seed003Request.check(StubResponse.ok)
                } strategy: { Seed003Request.strategy($0) }
                blackHole(response)
            }
        }

        Benchmark("executor.retry-3-attempts\(suffix).engine", configuration: configuration) { benchmark in
            var generator = SplitMix64(seed: 3)
            for _ in benchmark.scaledIterations {
                let server = FlakyServer()
                let response = try await executor.runConcurrently(using: &generator) { _ in server.respond() }
                precondition(response.statusCode == 200)
                blackHole(response)
            }
        }
        Benchmark("executor.retry-3-attempts\(suffix).baseline", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let server = FlakyServer()
                let response = try await withRetry(clock: clock) { try validate(server.respond()) }
                precondition(response.statusCode == 200)
                blackHole(response)
            }
        }
        // The same throwing closure on both sides: seed 003's `retry` and
        // the executor's `run`, whose `classify` reads the thrown status.
        Benchmark("executor.throwing-success\(suffix).engine", configuration: configuration) { benchmark in
            var generator = SplitMix64(seed: 3)
            for _ in benchmark.scaledIterations {
                let response = try await executor.run(using: &generator, classify: Seed003Request.classify) {
                    _ throws(FailedStatus) -> StubResponse in try Seed003Request.check(StubResponse.ok)
                }
                blackHole(response)
            }
        }
        Benchmark("executor.throwing-success\(suffix).baseline-seed003", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let response = try await retry(clock: clock) { () throws(FailedStatus) -> StubResponse in
                    try Seed003Request.check(StubResponse.ok)
                } strategy: { Seed003Request.strategy($0) }
                blackHole(response)
            }
        }
        Benchmark("executor.throwing-retry-3-attempts\(suffix).engine", configuration: configuration) { benchmark in
            var generator = SplitMix64(seed: 3)
            for _ in benchmark.scaledIterations {
                let server = FlakyServer()
                let response = try await executor.run(using: &generator, classify: Seed003Request.classify) {
                    _ throws(FailedStatus) -> StubResponse in try Seed003Request.check(server.respond())
                }
                precondition(response.statusCode == 200)
                blackHole(response)
            }
        }
        Benchmark("executor.throwing-retry-3-attempts\(suffix).baseline-seed003", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let server = FlakyServer()
                let response = try await retry(clock: clock) { () throws(FailedStatus) -> StubResponse in
                    try Seed003Request.check(server.respond())
                } strategy: { Seed003Request.strategy($0) }
                precondition(response.statusCode == 200)
                blackHole(response)
            }
        }
        Benchmark("executor.retry-3-attempts\(suffix).baseline-seed003", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                let server = FlakyServer()
                let response = try await retry(clock: clock) { () throws(FailedStatus) -> StubResponse in
                    try Seed003Request.check(server.respond())
                } strategy: { Seed003Request.strategy($0) }
                precondition(response.statusCode == 200)
                blackHole(response)
            }
        }
    }
}
