#if Postgres  // the trait; without it this module is empty
import Logging
import NIOCore
import PostgresNIO
import RetryPolicyCore

extension PostgresRetryStateStore {
    /// Runs `query` and collects its rows, giving up after `timeout`.
    static func run(
        _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger, timeout: Duration
    ) async throws -> [PostgresRow] {
        try await value(of: connection.query(query, logger: logger), timeout: timeout).rows
    }

    struct TimedOut: Error, CustomStringConvertible {
        var description: String { "timed out" }
    }

    /// The value of `future`, or ``TimedOut`` after `timeout`, whichever
    /// comes first; the wait never outlives the timeout, whatever the
    /// future does.
    static func value<T: Sendable>(of future: EventLoopFuture<T>, timeout: Duration) async throws -> T {
        let eventLoop = future.eventLoop
        let promise = eventLoop.makePromise(of: T.self)
        let settled = LockedBox(false)
        let timer = eventLoop.scheduleTask(in: timeout.timeAmount) {
            if settled.withLock({ done in defer { done = true }; return !done }) { promise.fail(TimedOut()) }
        }
        future.whenComplete { result in
            timer.cancel()
            if settled.withLock({ done in defer { done = true }; return !done }) { promise.completeWith(result) }
        }
        return try await promise.futureResult.get()
    }

    /// Starts closing `connection` without waiting for it. The connection
    /// is kept until its channel has closed: released while the channel is
    /// still active, it is a connection "deinitialized before being closed"
    /// (an assertion of PostgresNIO's debug builds).
    static func closeInBackground(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// An error for a log line or a message: the server's message when
    /// there is one. Escaped: a server's text (which can quote keys and
    /// values) is not trusted to be printable.
    static func describe(_ error: any Error) -> String {
        DisplayText.escaped(rawDescription(error))
    }

    private static func rawDescription(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}
#endif
