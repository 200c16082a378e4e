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
    ]
)
