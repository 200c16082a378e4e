#if AsyncHTTPClient && OpenTelemetry  // the traits; the export needs swift-otel's OTLP/HTTP exporter
import Foundation
import Testing

/// `retry-policy request` with OpenTelemetry's environment holding
/// credentials (an endpoint's user information and query, a header's
/// token): whatever the exporter says, the real binary's output never
/// holds them.
@Suite("retry-policy request: OTLP credentials never printed", .serialized)
struct TraceExportSecretTests {
    @Test(
        "An endpoint the exporter cannot use, or cannot reach, is reported without its credentials or headers",
        arguments: [
            "http://user:s3cr3tPW@exa mple:4318/v1/traces?token=s3cr3tTK",
            "http://user:s3cr3tPW@127.0.0.1:9/v1/traces?access_token=s3cr3tTK",
        ])
    func endpointCredentials(endpoint: String) throws {
        let command = RequestCommandTests()
        let policy = try command.policyFile(StateURLErrorTests.policy)
        let result = try command.run(
            ["request", "http://127.0.0.1:9/", "--policy", policy],
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
                "OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer s3cr3tHD",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            ])
        #expect(!result.stderr.contains("s3cr3t") && !result.stdout.contains("s3cr3t"), "\(result.stderr)")
        // The request itself ran, and its failure was reported.
        #expect(result.stderr.contains("transport failure connection_refused"), "\(result.stderr)")
    }
}
#endif
