// swift-tools-version: 6.1
// libFuzzer targets, in their own package so that normal builds never see
// `-sanitize=fuzzer`. Build and run with `Fuzz/run` (see docs/hardening.md).
import PackageDescription

let package = Package(
    name: "swift-retry-policy-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-retry-policy", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "FuzzRetryAfter",
            dependencies: [.product(name: "RetryPolicyCore", package: "swift-retry-policy")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // Notifications from peers on the shared-state channel: Core only, no NIO.
        .executableTarget(
            name: "FuzzSharedStatePayload",
            dependencies: [.product(name: "RetryPolicyCore", package: "swift-retry-policy")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // `retry-policy lsp`'s standard input: the framer and the server.
        .executableTarget(
            name: "FuzzLanguageServer",
            dependencies: [
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicyLanguageServer", package: "swift-retry-policy"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzPolicyLoader",
            dependencies: [
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicyLint", package: "swift-retry-policy"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .target(
            name: "FuzzImportHarness",
            dependencies: [
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicyYAML", package: "swift-retry-policy"),
                .product(name: "RetryPolicyLint", package: "swift-retry-policy"),
                .product(name: "RetryPolicyInterop", package: "swift-retry-policy"),
            ]
        ),
        .target(
            name: "FuzzRecordingHarness",
            dependencies: [
                .product(name: "RetryPolicyCore", package: "swift-retry-policy"),
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
            ]
        ),
    ] + ["HAR", "Nginx", "Envoy", "JSONL"].map { format in
        // One replay reader per target; the harness holds the checks.
        .executableTarget(
            name: "Fuzz\(format)Recording",
            dependencies: [
                "FuzzRecordingHarness",
                .product(name: "RetryPolicySimulation", package: "swift-retry-policy"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    } + [
        // Every importer InteropRegistry lists, in one target; the harness
        // holds the checks.
        .executableTarget(
            name: "FuzzImport",
            dependencies: ["FuzzImportHarness"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
