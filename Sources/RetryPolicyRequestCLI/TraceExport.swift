#if AsyncHTTPClient && Postgres && OpenTelemetry
import Logging
import OTel
import RetryPolicyCommandSupport
import RetryPolicyExecutor
import ServiceLifecycle

/// Sends the request's spans over OTLP/HTTP when OpenTelemetry's standard
/// environment variables ask for it, through swift-otel: the endpoint
/// (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`),
/// the protocol (`OTEL_EXPORTER_OTLP_PROTOCOL`, `http/protobuf` unless set,
/// or `http/json`), `OTEL_SERVICE_NAME`, headers, timeouts and the other
/// `OTEL_*` settings swift-otel reads. The exporter's batch is flushed by
/// ``finish()`` before the command exits.
struct TraceExport {
    let tracing: RetryTracing
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// `nil` when no endpoint is set, or OpenTelemetry is turned off
    /// (`OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none`).
    static func start(environment: [String: String], logger: Logger) throws -> TraceExport? {
        guard environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil,
            environment["OTEL_SDK_DISABLED"]?.lowercased() != "true",
            environment["OTEL_TRACES_EXPORTER"]?.lowercased() != "none"
        else { return nil }
        let requested = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] ?? environment["OTEL_EXPORTER_OTLP_PROTOCOL"]
        if let requested, requested != "http/protobuf", requested != "http/json" {
            throw CommandFailure(
                "OTEL_EXPORTER_OTLP_PROTOCOL=\(requested): traces are exported over OTLP/HTTP only; use http/protobuf or http/json")
        }
        var configuration = OTel.Configuration.default
        configuration.serviceName = "retry-policy"
        // The exporter's own diagnostics: warnings and errors only. At its
        // default level (info) it logs every OTEL_* variable it reads with
        // its value: an endpoint's credentials, OTEL_EXPORTER_OTLP_HEADERS'
        // tokens.
        configuration.diagnosticLogger = .custom(logger)
        configuration.diagnosticLogLevel = .warning
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        // A single request: its spans go out when the command ends, not on
        // the batch processor's timer.
        configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(60)
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [.init(service: backend.service)], logger: logger))
        let running = Task { try await group.run() }
        return TraceExport(tracing: RetryTracing(tracer: backend.factory), group: group, running: running)
    }

    /// Shuts the exporter down gracefully, which exports every span still
    /// batched, and waits for it.
    func finish() async {
        await group.triggerGracefulShutdown()
        _ = await running.result
    }
}
#endif
