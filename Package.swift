// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-retry-policy",
    // The floor of `Clock` and `Duration`. Nothing in the libraries needs a newer
    // OS (scripts/check-platform-apis keeps Synchronization and the other
    // iOS 17+/18+ APIs out of them).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "RetryPolicyCore", targets: ["RetryPolicyCore"]),
        .library(name: "RetryPolicyYAML", targets: ["RetryPolicyYAML"]),
        .library(name: "RetryPolicySimulation", targets: ["RetryPolicySimulation"]),
        .library(name: "RetryPolicyLint", targets: ["RetryPolicyLint"]),
        .library(name: "RetryPolicyInterop", targets: ["RetryPolicyInterop"]),
        .library(name: "RetryPolicyExecutor", targets: ["RetryPolicyExecutor"]),
        .library(name: "RetryPolicyStore", targets: ["RetryPolicyStore"]),
        // `retry-policy lsp`'s server, for the fuzz package (Fuzz/).
        .library(name: "RetryPolicyLanguageServer", targets: ["RetryPolicyLanguageServer"]),
        // For test targets only: clocks that tests move by hand.
        .library(name: "RetryPolicyTesting", targets: ["RetryPolicyTesting"]),
        .library(name: "RetryPolicyAsyncHTTPClient", targets: ["RetryPolicyAsyncHTTPClient"]),
        .library(name: "RetryPolicyURLSession", targets: ["RetryPolicyURLSession"]),
        .library(name: "RetryPolicyOpenAPI", targets: ["RetryPolicyOpenAPI"]),
        .library(name: "RetryPolicyPostgres", targets: ["RetryPolicyPostgres"]),
        .library(name: "RetryPolicyGRPC", targets: ["RetryPolicyGRPC"]),
        .executable(name: "retry-policy", targets: ["RetryPolicyCLI"]),
        // `retry-policy request`, which `retry-policy` runs: HTTP and the PostgreSQL store
        // live here, so that the lint commands build without NIO, AsyncHTTPClient,
        // BoringSSL and PostgresNIO.
        .executable(name: "retry-policy-request", targets: ["RetryPolicyRequestCLI"]),
    ],
    // The server integrations, each behind a trait that is on by default. A
    // dependent that turns them off (`traits: []`) resolves none of SwiftNIO,
    // AsyncHTTPClient, swift-nio-ssl, BoringSSL, swift-crypto or PostgresNIO:
    // every target dependency on those packages names its trait below, and
    // the products that need them build empty without it.
    traits: [
        .trait(
            name: "AsyncHTTPClient",
            description: "RetryPolicyAsyncHTTPClient: the executor around AsyncHTTPClient (SwiftNIO, swift-nio-ssl)."
        ),
        .trait(
            name: "Postgres",
            description: "RetryPolicyPostgres: budgets, cooldowns and breakers shared through PostgreSQL (PostgresNIO)."
        ),
        .trait(
            name: "ServiceLifecycle",
            description: "PolicyStore runs as a swift-service-lifecycle Service (swift-service-lifecycle, swift-async-algorithms)."
        ),
        .trait(
            name: "OpenTelemetry",
            description: "`retry-policy request` exports its traces over OTLP/HTTP (swift-otel, SwiftNIO, AsyncHTTPClient, swift-protobuf)."
        ),
        .trait(
            name: "OpenAPI",
            description: "RetryPolicyOpenAPI: a swift-openapi-runtime client middleware (swift-openapi-runtime, swift-http-types)."
        ),
        .trait(
            name: "GRPC",
            description: "RetryPolicyGRPC: a grpc-swift 2 client transport that runs calls under a policy (grpc-swift-2)."
        ),
        .default(enabledTraits: ["AsyncHTTPClient", "Postgres", "ServiceLifecycle", "OpenTelemetry", "OpenAPI", "GRPC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.2.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        // Already required by async-http-client; named here so the adapter can match its errors by type.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        // Only the PostgreSQL store depends on it; the core and the other targets never do.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        // The tracing API only (no exporter): spans per request and attempt.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        // `Service` for the policy store and the PostgreSQL store, each behind a trait.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.4.0"),
        // The OTLP/HTTP exporter of `retry-policy request` only, behind the OpenTelemetry trait.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.0.0", traits: ["OTLPHTTP"]),
        // The OpenAPI middleware, behind the OpenAPI trait; the two transports for its tests only.
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        // The build plugin that generates the OpenAPI tests' client; a test-only
        // dependency, so a dependent never resolves it.
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.0"),
        // The gRPC interceptor, behind the GRPC trait; the NIO transport serves its tests only.
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.0"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport.git", from: "2.9.0"),
        // `swift package generate-documentation`; adds no code to any target.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The pure engine: model, decider, backoff, taxonomy. No I/O, no Foundation.
        // The compiler's atomic instructions (`import Builtin`, as swift-atomics
        // does) keep the budget and cooldown lock-free without Synchronization.
        .target(name: "RetryPolicyCore", swiftSettings: [.enableExperimentalFeature("BuiltinModule")]),

        // libyaml, found through pkg-config.
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]
        ),

        // Strict YAML loader with source locations.
        .target(name: "RetryPolicyYAML", dependencies: ["RetryPolicyCore", "CYAML"]),

        // Requests and outage storms on simulated time, policy unit tests
        // (`NAME.tests.yaml`), and their reports.
        .target(name: "RetryPolicySimulation", dependencies: ["RetryPolicyCore", "RetryPolicyYAML"]),

        // Semantic lint rules and report formats; the diff and error table of policies.
        .target(name: "RetryPolicyLint", dependencies: ["RetryPolicyCore", "RetryPolicyYAML", "RetryPolicyInterop"]),

        // Export to and import from other layers' retry configuration (gRPC, Envoy, Istio,
        // resilience4j, AWS shared config).
        .target(name: "RetryPolicyInterop", dependencies: ["RetryPolicyCore", "RetryPolicyYAML"]),

        // Runs operations under a decider; telemetry. No YAML: the executor and the
        // HTTP adapters above it never link libyaml.
        // The names, instruments and attributes of every metric the package records.
        .target(name: "RetryPolicyMetricCatalogue"),

        .target(
            name: "RetryPolicyExecutor",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyMetricCatalogue",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // Test clocks (`ManualClock`), for the test targets of code that waits:
        // kept out of the production products, and on Core alone.
        .target(name: "RetryPolicyTesting", dependencies: ["RetryPolicyCore"]),

        // A directory of policy files served to every request, reloaded on change.
        .target(
            name: "RetryPolicyStore",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyYAML",
                "RetryPolicyMetricCatalogue",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
            ]
        ),

        // HTTP adapters, each in its own target so the core stays dependency-free.
        .target(
            name: "RetryPolicyAsyncHTTPClient",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "RetryPolicyURLSession",
            dependencies: [
                "RetryPolicyCore", "RetryPolicyExecutor", .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // A swift-openapi-runtime `ClientMiddleware` running each operation under its policy.
        .target(
            name: "RetryPolicyOpenAPI",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            ]
        ),
        // The client swift-openapi-generator's build plugin generates, in every
        // build, from the target's openapi.yaml with the settings in
        // openapi-generator-config.yaml: used by the OpenAPI tests and the
        // adapter conformance suite, and by no product.
        .target(
            name: "OpenAPITestClient",
            dependencies: [
                // The generated client compiles whatever the traits.
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/OpenAPITestClient",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .testTarget(
            name: "RetryPolicyOpenAPITests",
            dependencies: [
                "HTTPTestSupport",
                "OpenAPITestClient",
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                "RetryPolicyOpenAPI",
                "RetryPolicyStore",
                "RetryPolicyTesting",
                "RetryPolicyURLSession",
                "RetryPolicyAsyncHTTPClient",
                .product(name: "Logging", package: "swift-log"),
                // The generated client compiles whatever the traits.
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(
                    name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
            ]
        ),

        // Fleet-wide retry budget and cooldown shared through PostgreSQL.
        .target(
            name: "RetryPolicyPostgres",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyMetricCatalogue",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Postgres"])),
            ]
        ),

        // gRPC calls under a policy: a grpc-swift 2 `ClientInterceptor` over the executor.
        .target(
            name: "RetryPolicyGRPC",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),

        // `retry-policy lsp`: the Language Server Protocol over standard input and
        // output, checking open buffers with the loader, lint and the simulator.
        .target(
            name: "RetryPolicyLanguageServer",
            dependencies: ["RetryPolicyCore", "RetryPolicyYAML", "RetryPolicyLint", "RetryPolicySimulation"]
        ),

        // The command-line tool: a thin layer over the modules above. No networking:
        // `retry-policy request` runs `retry-policy-request`.
        .executableTarget(
            name: "RetryPolicyCLI",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyYAML",
                "RetryPolicyLint",
                "RetryPolicySimulation",
                "RetryPolicyInterop",
                "RetryPolicyCommandSupport",
                "RetryPolicyLanguageServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // What both executables share: exit statuses, `--root`, reading and
        // loading policy files, the parse-run-exit `main`.
        .target(
            name: "RetryPolicyCommandSupport",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyYAML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // `retry-policy-request`: an HTTP request under a policy, optionally with the
        // budget and cooldown shared through PostgreSQL.
        .executableTarget(
            name: "RetryPolicyRequestCLI",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyYAML",
                "RetryPolicyCommandSupport",
                "RetryPolicyExecutor",
                "RetryPolicyAsyncHTTPClient",
                "RetryPolicyPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["OpenTelemetry"])),
            ]
        ),

        // Policies built in code (the seeds' numbers, the lint tests' clean baseline),
        // shared by the test targets.
        .target(
            name: "RetryPolicyTestSupport",
            dependencies: ["RetryPolicyCore", .product(name: "Metrics", package: "swift-metrics")],
            path: "Tests/RetryPolicyTestSupport"
        ),

        .testTarget(
            name: "RetryPolicyCoreTests",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                .target(name: "AllocationCounting", condition: .when(platforms: [.linux])),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // The allocation counter defines `malloc` in the test binary;
            // exporting it lets it see the Swift runtime's allocations.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic-symbol=malloc"], .when(platforms: [.linux]))]
        ),
        // Waiting for a child process without Foundation's missed-exit hang.
        .target(name: "ChildProcessSupport", path: "Tests/ChildProcessSupport"),
        // Runs schema/generate.py for the schema-versus-reader tests of the YAML, simulation and lint modules.
        .target(name: "SchemaTestSupport", dependencies: ["ChildProcessSupport"], path: "Tests/SchemaTestSupport"),
        // A counting `malloc` for the allocation tests (Linux only).
        .target(name: "AllocationCounting", path: "Tests/AllocationCounting"),
        .testTarget(
            name: "RetryPolicyYAMLTests",
            dependencies: [
                "ChildProcessSupport",
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                "RetryPolicyYAML",
                "SchemaTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "RetryPolicyLintTests",
            dependencies: [
                "ChildProcessSupport",
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                "RetryPolicyYAML",
                "RetryPolicyLint",
                "SchemaTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RetryPolicySimulationTests",
            dependencies: [
                "ChildProcessSupport",
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                "RetryPolicyYAML",
                "RetryPolicySimulation",
                "SchemaTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            // Recorded storm reports and the adaptive-mode tables, read through #filePath.
            exclude: ["StormGolden", "AdaptiveConformance"]
        ),
        .testTarget(
            name: "RetryPolicyExecutorTests",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                "RetryPolicyExecutor",
                "RetryPolicyMetricCatalogue",
                "RetryPolicyTesting",
                // The examples load their policies from YAML.
                "RetryPolicyYAML",
                // The simulator, which the executor must agree with.
                "RetryPolicySimulation",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "RetryPolicyStoreTests",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                "RetryPolicyStore",
                "RetryPolicyTesting",
                "RetryPolicyYAML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
            ]
        ),
        // The loopback HTTP server the adapter tests run against, their
        // helpers, and what an adapter provides to the conformance suite.
        .target(
            name: "HTTPTestSupport",
            dependencies: [
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                "RetryPolicyTesting",
                "PostgresTestServer",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
            ],
            path: "Tests/HTTPTestSupport"
        ),
        .testTarget(
            name: "RetryPolicyHTTPTests",
            dependencies: [
                "ChildProcessSupport",
                "HTTPTestSupport",
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                "RetryPolicyExecutor",
                "RetryPolicyStore",
                "RetryPolicyAsyncHTTPClient",
                "RetryPolicyURLSession",
                "RetryPolicyTesting",
                "PostgresTestServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            // The OTLP receiver the export tests start (Python).
            exclude: ["OTLPReceiver"]
        ),
        // One contract every adapter over the executor is held to, run
        // against each adapter and a loopback server.
        .testTarget(
            name: "RetryPolicyAdapterConformanceTests",
            dependencies: [
                "HTTPTestSupport",
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                "RetryPolicyAsyncHTTPClient",
                "RetryPolicyURLSession",
                "RetryPolicyTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                "RetryPolicyOpenAPI",
                "RetryPolicyTestSupport",
                .target(name: "OpenAPITestClient", condition: .when(traits: ["OpenAPI"])),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession", condition: .when(traits: ["OpenAPI"])),
                .product(
                    name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
                    condition: .when(traits: ["AsyncHTTPClient"])),
                "GRPCTestSupport",
                "RetryPolicyGRPC",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // The scripted grpc-swift 2 server the gRPC tests and the conformance
        // suite run against.
        .target(
            name: "GRPCTestSupport",
            dependencies: [
                "RetryPolicyCore",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
            ],
            path: "Tests/GRPCTestSupport"
        ),
        // The gRPC transport against a grpc-swift 2 server over HTTP/2 on loopback.
        .testTarget(
            name: "RetryPolicyGRPCTests",
            dependencies: [
                "GRPCTestSupport",
                "HTTPTestSupport",
                "RetryPolicyCore",
                "RetryPolicyExecutor",
                "RetryPolicyGRPC",
                "RetryPolicyStore",
                "RetryPolicyTesting",
                "RetryPolicyYAML",
                .product(name: "GRPCCore", package: "grpc-swift-2", condition: .when(traits: ["GRPC"])),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport", condition: .when(traits: ["GRPC"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Starts a throwaway PostgreSQL for the integration tests.
        .target(name: "PostgresTestServer", dependencies: ["RetryPolicyCore"], path: "Tests/PostgresTestServer"),
        .testTarget(
            name: "RetryPolicyPostgresTests",
            dependencies: [
                "ChildProcessSupport",
                "RetryPolicyCore",
                "RetryPolicyPostgres",
                "RetryPolicyExecutor",
                "PostgresTestServer",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Postgres"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Postgres"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "RetryPolicyInteropTests",
            dependencies: [
                "ChildProcessSupport",
                "RetryPolicyCore",
                "RetryPolicyTestSupport",
                "RetryPolicyYAML",
                "RetryPolicyLint",
                "RetryPolicyInterop",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "RetryPolicyLanguageServerTests",
            dependencies: [
                "RetryPolicyLanguageServer", "RetryPolicyCore", "RetryPolicyYAML", "RetryPolicyTesting", "ChildProcessSupport",
            ],
            // The pytest-lsp session run against the built binary.
            exclude: ["EndToEnd"]
        ),
        .testTarget(name: "RetryPolicyCLITests", dependencies: ["RetryPolicyCore", "ChildProcessSupport"], exclude: ["Fixtures"]),
    ]
)
