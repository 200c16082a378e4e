#if ServiceLifecycle  // the trait; without it the store is no Service
import Foundation
import Logging
import RetryPolicyStore
import ServiceLifecycle
import Testing

/// The store as a swift-service-lifecycle `Service` in a `ServiceGroup`:
/// it watches its directory while the group runs, and a graceful shutdown
/// stops the watcher and ends the group.
@Suite("PolicyStore as a Service", .timeLimit(.minutes(1)))
struct PolicyStoreServiceTests {
    @Test("in a ServiceGroup the store watches and reloads; a graceful shutdown stops the watcher and the group returns")
    func gracefulShutdown() async throws {
        let directory = NSTemporaryDirectory() + "policy-store-service-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "name: first\n".write(toFile: directory + "/first.yaml", atomically: true, encoding: .utf8)
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let events = store.events()
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(services: [.init(service: store)], logger: Logger(label: "test")))
        let running = Task { try await group.run() }

        // Watching, then an edit reaches the served generation: the
        // service is the store's watcher.
        var iterator = events.makeAsyncIterator()
        while let event = await iterator.next() {
            if case .watchModeChanged(let mode) = event, mode != .notWatching { break }
        }
        try "name: second\n".write(toFile: directory + "/second.yaml", atomically: true, encoding: .utf8)
        while let event = await iterator.next() {
            if case .reloaded(let report) = event, report.added.contains("second") { break }
        }
        #expect(store.snapshot.policyNames == ["first", "second"])

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(store.watchMode == .notWatching)
        // What the store had is still served.
        #expect(store.decider(named: "second") != nil)
    }
}
#endif
