#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
#if GRPC
import GRPCCore
import RetryPolicyGRPC
#endif
import HTTPTestSupport
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting

/// The events the executor reports for a server script when nothing but
/// the script stands between it and the policy: what every adapter's
/// observer must see for the same script.
enum ReferenceRun {
    /// One answer of the server.
    enum Step: Sendable {
        case status(Int, headers: [(String, String)] = [])
        /// A body cut off by a reset: `connection_lost`.
        case connectionLost

        var serverAction: ServerAction {
            switch self {
            case .status(let status, let headers): .respond(status: status, headers: headers)
            case .connectionLost: .resetMidResponse
            }
        }
    }

    /// A backoff, a server delay and a lost connection, then success.
    static let mixedScript: [Step] = [
        .status(503), .status(429, headers: [("Retry-After", "3")]), .connectionLost, .status(200),
    ]

    struct Response: RetryableResponse {
        var statusCode: Int
        var headers: [(String, String)]
        func headerValue(named name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// The events for `script` as `server`'s protocol shows it: HTTP
    /// responses, or for a gRPC server each step's status as `GRPCScript`
    /// maps it and a lost connection as the `UNAVAILABLE` the transport
    /// reports.
    static func events(
        for script: [Step], under policy: Policy, origin: Timestamp, server: any ScriptedServer
    ) async -> [RetryEvent] {
        #if GRPC
        if server is GRPCScriptedServer { return await grpcEvents(for: script, under: policy, origin: origin) }
        #endif
        return await events(for: script, under: policy, origin: origin)
    }

    /// Runs `script` through the executor directly, on a clock of its own.
    static func events(for script: [Step], under policy: Policy, origin: Timestamp) async -> [RetryEvent] {
        let clock = ManualClock()
        let log = EventLog()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin, observer: log.observer, tracing: nil)
        let remaining = LockedValue(script)
        let waits = script.count - 1
        _ = await drive(clock, server: nil, requestsBeforeEachAdvance: Array(repeating: 0, count: waits)) {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently { (_: AttemptContext) async throws -> Response in
                    let step = remaining.withLock { $0.isEmpty ? Step.status(200) : $0.removeFirst() }
                    switch step {
                    case .status(let status, let headers): return Response(statusCode: status, headers: headers)
                    case .connectionLost: throw TransportError(.connectionLost)
                    }
                }
            }
        }
        return log.events
    }

    #if GRPC
    /// What the gRPC transport hands the executor for one step.
    struct GRPCOutcome: Sendable {
        var outcome: AttemptOutcome
    }

    /// `events` for a gRPC server: each step's outcome as the transport
    /// reports it (a status with the pushback in its trailers; a lost
    /// connection thrown as `UNAVAILABLE`, read by `ErrorClassifier.grpc`).
    static func grpcEvents(for script: [Step], under policy: Policy, origin: Timestamp) async -> [RetryEvent] {
        let clock = ManualClock()
        let log = EventLog()
        var executor = RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin, observer: log.observer, tracing: nil)
        executor.classifier = .grpc
        let reference = executor
        let remaining = LockedValue(script)
        let waits = script.count - 1
        _ = await drive(clock, server: nil, requestsBeforeEachAdvance: Array(repeating: 0, count: waits)) {
            await capture { () async throws(RetryFailure) in
                try await reference.runConcurrently(
                    classify: { (result: Result<GRPCOutcome, any Error>) in
                        if case .success(let step) = result { step.outcome } else { nil }
                    }
                ) { _ in
                    let step = remaining.withLock { $0.isEmpty ? Step.status(200) : $0.removeFirst() }
                    switch step {
                    case .status(let status, let headers):
                        guard let code = try GRPCScript.code(for: status) else { return GRPCOutcome(outcome: .grpc(.ok)) }
                        var trailers = ResponseHeaders()
                        if case .fail(_, _, let metadata) = try GRPCScript.reply(for: .respond(status: status, headers: headers)) {
                            for (key, value) in metadata { if case .string(let text) = value { trailers.append(name: key, value: text) } }
                        }
                        return GRPCOutcome(
                            outcome: .grpc(status: GRPCStatusCode(rawValue: code.rawValue) ?? .unknown, metadata: trailers))
                    case .connectionLost:
                        throw RPCError(code: .unavailable, message: "the connection was lost")
                    }
                }
            }
        }
        return log.events
    }
    #endif

    /// `events` without the text of the errors the client threw, which is
    /// each client's own wording.
    static func comparable(_ events: [RetryEvent]) -> [RetryEvent] {
        events.map { event in
            guard case .attemptFinished(var record) = event else { return event }
            record.errorDescription = nil
            return .attemptFinished(record)
        }
    }
}
#endif
