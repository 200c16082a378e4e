#if AsyncHTTPClient && Postgres  // the traits; without them RequestTool says how to build this tool
import ArgumentParser
import Foundation
import Logging
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyPostgres
import RetryPolicyCommandSupport

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        // Run as `retry-policy request`, which hands its arguments to this
        // executable; the usage lines say so.
        commandName: "retry-policy request",
        abstract: "Perform an HTTP request under a policy, like curl --retry with the policy's rules.",
        discussion: """
            Examples:
              retry-policy request https://api.themoviedb.org/3/movie/550 --policy policies/tmdb.yaml
              retry-policy request https://auction.example.com/v1/auction --policy policies/ios-sdk.yaml \\
                  --method POST --header 'Content-Type: application/json' --data @auction.json \\
                  --endpoint main_banner --verbose

            The body of the response the policy accepted goes to standard output; when the request \
            fails, the body of the last response (if any) still goes there, like curl without -f. \
            --verbose prints the timeline of attempts, decisions and waits on standard error.

            With --state postgres://USER@HOST:PORT/DB the retry budget and the server-directed \
            cooldown are shared through PostgreSQL with every process using the same database \
            and key (--state-key, by default the policy's name): scripts and CI jobs on many \
            machines spend one budget and respect one cooldown. --init-state creates the tables \
            first (idempotent). The URL takes libpq's sslmode (disable, prefer, require, verify-ca, \
            verify-full), sslrootcert, sslcert and sslkey. A bad URL, a certificate problem, wrong \
            credentials or missing tables exit with 2. A server that cannot be reached is not an \
            error unless the URL says fail=closed: the request goes out on local state, with a \
            warning on standard error, and the state is shared once the server answers.

            Exit status: 0 success; 1 the policy file does not load; 2 usage or I/O error; \
            otherwise the code of the error kind that ended the request: 10 no_fill, \
            11 network_error, 12 status_429, 13 status_5xx, 14 timeout, 15 internal_error, \
            16 invalid_placement, 17 unauthorized, 18 not_found, 19 cancelled, 20 decoding_failed, \
            30 a kind the policy declares itself.

            This command is the retry-policy-request executable, kept apart from retry-policy \
            so that the lint commands build without NIO, AsyncHTTPClient and PostgresNIO: \
            `swift build -c release --product retry-policy-request` and install it next to \
            retry-policy (or anywhere on PATH).
            """,
        version: RetryPolicyVersion.current)

    @Argument(help: "The URL to request.")
    var url: String

    @Option(help: "The policy file the request runs under.")
    var policy: String

    @Option(help: "The request method.")
    var method: String = "GET"

    @Option(name: [.customLong("header"), .customShort("H")], help: ArgumentHelp("A request header, 'Name: value' (repeatable).", valueName: "header"), transform: HeaderArgument.parse)
    var headers: [ResponseHeaders.Field] = []

    @Option(name: [.customLong("data"), .customShort("d")], help: ArgumentHelp("The request body: text, @FILE, or @- for standard input.", valueName: "data"))
    var data: String?

    @Option(help: "The endpoint (placement) whose timeout overrides apply.")
    var endpoint: String?

    @Option(help: "Seed for the backoff jitter, for a reproducible timeline.")
    var seed: UInt64?

    @Option(help: ArgumentHelp("Share the retry budget and cooldown through PostgreSQL: postgres://USER@HOST:PORT/DB[?sslmode=...&fail=open|closed].", valueName: "url"))
    var state: String?

    @Option(help: ArgumentHelp("The key the shared state is kept under (default: the policy's name), e.g. one per API key.", valueName: "key"))
    var stateKey: String?

    @Flag(help: "Create the shared-state tables if they are missing (with --state).")
    var initState = false

    @Flag(name: [.customLong("verbose"), .customShort("v")], help: "Print the timeline of attempts and decisions on standard error.")
    var verbose = false

    @OptionGroup var rootOptions: RootOptions

    func validate() throws {
        if state == nil && (stateKey != nil || initState) {
            throw ValidationError("--state-key and --init-state need --state")
        }
        if let stateKey, stateKey.isEmpty { throw ValidationError("--state-key must not be empty") }
    }

    func run() async throws {
        let policy = try PolicyFiles.loadPolicy(self.policy, root: rootOptions.policyRoot())
        let request = PolicyRequest(
            url: url, method: method, headers: headers.map { ($0.name, $0.value) }, body: try body(),
            endpoint: endpoint)
        var observer: RetryObserver?
        if verbose {
            observer = { @Sendable (event: RetryEvent) in StandardError.write("* \(event.description)\n") }
        }
        var store: PostgresRetryStateStore?
        var decider: RetryDecider?
        if let state {
            let configuration: PostgresStateConfiguration
            do { configuration = try PostgresStateConfiguration(url: state) } catch { throw CommandFailure("--state: \(error)") }
            let shared = PostgresRetryStateStore(configuration: configuration, logger: Self.stateLogger(verbose: verbose))
            do { try await shared.start(createSchema: initState) } catch { throw CommandFailure("--state: \(error)") }
            store = shared
            decider = await shared.decider(for: policy, key: stateKey)
        }
        let export = try Self.startTraceExport()
        let outcome: Result<HTTPResponse, RetryFailure>
        do {
            outcome = .success(
                try await RetryingHTTPClient.perform(
                    request, policy: policy, decider: decider, seed: seed, observer: observer, tracing: export?.tracing))
        } catch {
            outcome = .failure(error)
        }
        // Writes the refunds still batched before the process ends.
        await store?.shutdown()
        await export?.finish()
        do {
            let response = try outcome.get()
            FileHandle.standardOutput.write(Data(response.body.readableBytesView))
        } catch {
            if let last = error.lastResponse as? HTTPResponse {
                FileHandle.standardOutput.write(Data(last.body.readableBytesView))
            }
            StandardError.write("error: \(error.error.message) (\(error.reason.rawValue) after \(plural(error.attempts.count, "attempt")))\n")
            throw ExitCodeError(status: RequestExitStatus.code(for: error.error.kind))
        }
    }

    #if OpenTelemetry
    /// Spans over OTLP when OpenTelemetry's environment variables ask for
    /// them; exporter trouble goes to standard error.
    private static func startTraceExport() throws -> TraceExport? {
        var logger = Logger(label: "retry-policy.otel") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = .warning
        do {
            return try TraceExport.start(environment: ProcessInfo.processInfo.environment, logger: logger)
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            // The exporter's errors may quote the endpoint, whose user
            // information or query can hold a credential.
            var message = "\(error)"
            for name in ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] {
                guard let endpoint = ProcessInfo.processInfo.environment[name], !endpoint.isEmpty else { continue }
                message = message.replacingOccurrences(of: endpoint, with: TracedURL(endpoint)?.full ?? "<\(name)>")
            }
            throw CommandFailure("OpenTelemetry: " + DisplayText.escaped(message))
        }
    }
    #else
    private static func startTraceExport() throws -> TraceExport? { nil }

    /// Built without the OpenTelemetry trait: nothing to export with.
    struct TraceExport {
        var tracing: RetryTracing? { nil }
        func finish() async {}
    }
    #endif

    /// Shared-state trouble (fallbacks, reconnections) on standard error:
    /// warnings always, everything with --verbose.
    private static func stateLogger(verbose: Bool) -> Logger {
        var logger = Logger(label: "retry-policy.state") { label in
            StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }

    private func body() throws(CommandFailure) -> [UInt8]? {
        guard let data else { return nil }
        guard data.hasPrefix("@") else { return Array(data.utf8) }
        let path = String(data.dropFirst())
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the request body")
        }
        return Array(contents)
    }
}
#endif
