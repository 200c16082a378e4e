// swift-tools-version: 6.1
// Benchmarks live in their own package so that building and testing the
// library never compiles the benchmark harness or its dependencies.
import PackageDescription

let package = Package(
    name: "swift-retry-policy-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-retry-policy", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        // The latency proxy of the slow-database benchmarks (already in the
        // graph through PostgresNIO).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.65.0"),
    ],
    targets: [
        // Policies, inputs and the hand-written baselines the benchmarks
        // share.
        .target(
            name: "BenchmarkWorkloads",
            dependencies: [.product(name: "RetryPolicyCore", package: "swift-retry-policy")]
        ),
        .executableTarget(
            name: "DecisionBenchmarks",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/DecisionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PolicyFileBenchmarks",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicyLint", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/PolicyFileBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Outage storms of 100,000 and 1,000,000 clients as `simulate
        // --clients` runs them, and a million streamed requests through the
        // simulated driver.
        .executableTarget(
            name: "StormBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/StormBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A total outage per budget style (none, token buckets, gRPC,
        // the ratio budgets, adaptive), with the storm's amplification as
        // a metric of its own.
        .executableTarget(
            name: "BudgetStormBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/BudgetStormBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A keystroke in a 1,000-line policy through `retry-policy lsp` (the
        // built binary over its standard streams), against a 100 ms budget.
        .executableTarget(
            name: "LanguageServerBenchmarks",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/LanguageServerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The executor benchmarks' policy, responses, servers and clock,
        // seed 002's and seed 003's retry functions, and the request each
        // side sends, shared with `executor-profile`.
        .target(
            name: "ExecutorWorkloads",
            dependencies: [
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyExecutor", package: "swift-retry-policy"),
            ]
        ),
        .executableTarget(
            name: "ExecutorBenchmarks",
            dependencies: [
                "ExecutorWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyExecutor", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/ExecutorBenchmarks",
            swiftSettings: alignedCode,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Decision + admission with the PostgreSQL store attached against
        // the in-memory store. Needs a server: `Scripts/fleet.py` starts one
        // and passes its URL in RETRY_POLICY_BENCH_POSTGRES_URL; without it
        // the benchmarks are skipped with a note.
        .executableTarget(
            name: "FleetBenchmarks",
            dependencies: [
                "FleetWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyPostgres", package: "swift-retry-policy"),
                .product(name: "RetryPolicyExecutor", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/FleetBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // `retry-policy replay`'s engine over a million recorded requests:
        // an nginx log written once, streamed from the file.
        .target(
            name: "ReplayWorkloads",
            dependencies: [
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
            ]
        ),
        .executableTarget(
            name: "ReplayBenchmarks",
            dependencies: [
                "ReplayWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
            ],
            path: "Benchmarks/ReplayBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // `replay-profile N`: the replay benchmark without the harness (the
        // time and the memory high-water mark of one run).
        .executableTarget(
            name: "replay-profile",
            dependencies: ["ReplayWorkloads"],
            path: "Sources/ReplayProfile"
        ),
        // `storm-profile POLICY CLIENTS`: one outage storm without the
        // harness (time and peak memory; small runs under callgrind).
        .executableTarget(
            name: "storm-profile",
            dependencies: [
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
            ],
            path: "Sources/StormProfile"
        ),
        // The fleet policy and clock shared by the benchmarks and the probe,
        // and a TCP proxy that puts the database further away.
        .target(
            name: "FleetWorkloads",
            dependencies: [
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Separate OS processes for `Scripts/fleet.py`: a request load
        // (round trips per 1,000 requests) and cooldown propagation
        // (one sender, several observers).
        // `corpus-lint DIR N`: writes the corpus of `corpus.load-lint` into
        // DIR and lints it N times, without the benchmark harness, for
        // `valgrind --tool=callgrind` (instruction counts do not depend on
        // what else the machine runs).
        .executableTarget(
            name: "corpus-lint",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicyLint", package: "swift-retry-policy"),
            ],
            path: "Sources/CorpusLint"
        ),
        // `decision-profile SIDE MIX N`: the decision benchmarks' loop
        // without the harness, for callgrind's instruction counts.
        .executableTarget(
            name: "decision-profile",
            dependencies: [
                "BenchmarkWorkloads",
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
            ],
            path: "Sources/DecisionProfile"
        ),
        // `executor-profile SIDE PATH N`: N requests of the executor
        // benchmarks in one task, without the harness, for callgrind.
        .executableTarget(
            name: "executor-profile",
            dependencies: [
                "ExecutorWorkloads",
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyExecutor", package: "swift-retry-policy"),
            ],
            path: "Sources/ExecutorProfile"
        ),
        .executableTarget(
            name: "fleet-probe",
            dependencies: [
                "FleetWorkloads",
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyPostgres", package: "swift-retry-policy"),
            ],
            path: "Sources/FleetProbe"
        ),
    ]
)

/// The executor benchmarks' loops, engine and baselines alike, are
/// compiled with every function aligned to 64 bytes and every branch
/// target to 32: otherwise where a build happens to place a few-cycle loop
/// decides its ratio (seed 003's first-try loop ran 2.23-2.31 µs per 1,000
/// requests in one build and 2.49-2.53 µs in another, from the same
/// source). Not `executor-profile`: callgrind would count the padding.
/// docs/performance.md.
var alignedCode: [SwiftSetting] {
    [.unsafeFlags(["-Xllvm", "-align-all-functions=6", "-Xllvm", "-align-all-nofallthru-blocks=5"])]
}
