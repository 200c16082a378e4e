#if Postgres  // the trait; without it this module is empty
import ServiceLifecycle

/// The store as a swift-service-lifecycle `Service`, for a `ServiceGroup`
/// that runs it beside the services that use it (list it before them: a
/// group shuts its services down in reverse order, so the store writes its
/// refunds after the last request that made one).
extension PostgresRetryStateStore: Service {
    /// Starts the store unless ``start(createSchema:)`` ran already (without
    /// creating the tables; it throws what `start` throws), then runs until
    /// graceful shutdown, cancellation or ``shutdown()``. On graceful
    /// shutdown or cancellation it calls ``shutdown()``, which writes the
    /// refunds, cooldowns and breaker openings kept locally before it
    /// returns.
    public func run() async throws {
        try await start()
        await withTaskGroup(of: Void.self) { group in
            // Returns on graceful shutdown, and throws (ignored) when cancelled.
            group.addTask { try? await gracefulShutdown() }
            group.addTask { [self] in await waitUntilShutDown() }
            await group.next()
            group.cancelAll()
        }
        await shutdown()
    }
}
#endif
