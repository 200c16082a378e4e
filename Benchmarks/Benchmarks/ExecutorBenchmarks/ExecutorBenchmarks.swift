import Benchmark
import ExecutorWorkloads
import RetryPolicyCore

/// The executor against the hand-written retry functions of the seeds, on a
/// first-try success (`executor.success`) and on a request answered 503,
/// 503, 200 (`executor.retry-3-attempts`). Every side sends the same
/// request (`RequestSide` in `ExecutorWorkloads`, which `executor-profile`
/// runs too) and waits on the same zero-delay clock, so the numbers are
/// the cost of the retry machinery alone:
///
/// - `.engine`: `RetryExecutor.run` with seed 003's throwing operation,
///   its status handed to the policy by `classify`;
/// - `.baseline`: seed 003's `retry` with the same operation, the baseline
///   of the executor's targets;
/// - `.baseline-seed002`: seed 002's `withRetry` and `validate`.
///
/// The harness runs every iteration in a new task, so the plain names
/// include what a request costs in a task of its own (the task allocator's
/// first slab must hold its async frames); the `-in-one-task` names run
/// 1,000 requests one after another in one task, as a worker loop does,
/// and report the steady state.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 100,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )
    for (suffix, scaling) in [("", BenchmarkScalingFactor.one), ("-in-one-task", .kilo)] {
        var configuration = Benchmark.defaultConfiguration
        configuration.scalingFactor = scaling
        registerSides(HealthyServer.self, "executor.success\(suffix)", configuration)
        registerSides(FlakyServer.self, "executor.retry-3-attempts\(suffix)", configuration)
    }
}

/// The three sides of one case. Each side is named by its type, not taken
/// from an array of `any RequestSide`, so that every benchmark is compiled
/// for its concrete side.
func registerSides<Server: StubServer>(_ server: Server.Type, _ name: String, _ configuration: Benchmark.Configuration) {
    register(EngineSide(), server, name, configuration)
    register(Seed003Side(), server, name, configuration)
    register(Seed002Side(), server, name, configuration)
}

/// One benchmark: `side` sends the iteration's requests, each to a new
/// `Server`. Generic, so that each is compiled for its side and server as
/// a loop written out by hand would be.
func register<Side: RequestSide, Server: StubServer>(
    _ side: Side, _ server: Server.Type, _ name: String, _ configuration: Benchmark.Configuration
) {
    Benchmark("\(name).\(Side.name)", configuration: configuration) { benchmark in
        var generator = SplitMix64(seed: 3)
        try await side.send(benchmark.scaledIterations.count, to: Server.self, using: &generator)
    }
}
