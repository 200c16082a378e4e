#if ServiceLifecycle  // the trait; without it the store has no Service conformance
import ServiceLifecycle

/// A policy store runs as a swift-service-lifecycle `Service`: in a
/// `ServiceGroup` it watches its directory (with the default settings of
/// `watch()`) until the group shuts down, gracefully or by cancellation.
///
/// ```swift
/// let store = try PolicyStore(directory: "/etc/retry-policies")
/// let group = ServiceGroup(
///     configuration: .init(services: [.init(service: store)], gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
///
/// A graceful shutdown stops the watcher and closes its descriptors; the
/// store keeps serving the policies it has to anyone still holding it.
/// For other watch settings, run `watch(debounce:rescanEvery:pollingFallback:)`
/// from a service of your own inside `cancelWhenGracefulShutdown`.
extension PolicyStore: Service {
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await self.watch()
        }
    }
}
#endif
