#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
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
