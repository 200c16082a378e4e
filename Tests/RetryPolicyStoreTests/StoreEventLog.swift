import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import RetryPolicyTesting
import Testing

/// Everything a store reports, for tests to wait on.
///
/// Waiting is driven by the store's events: a condition is checked when
/// the wait starts and again after each event the store publishes (every
/// reload, also one that changed nothing, and every change of watch mode),
/// never on a timer. A store publishes its new snapshot before the event
/// of the reload that made it, so a condition on `snapshot`, `decider` or
/// `watchMode` is true by the time its event arrives. The time limit only
/// guards against a store that never gets there.
final class StoreEventLog: Sendable {
    private struct State {
        var events: [PolicyStore.Event] = []
        var waiters: [Int: (seen: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        var nextWaiter = 0
    }

    private let state = LockedValue(State())

    /// Subscribes before returning, so no event after this call is missed.
    static func recording(_ store: PolicyStore) -> StoreEventLog {
        let log = StoreEventLog()
        let stream = store.events()
        Task { for await event in stream { log.record(event) } }
        return log
    }

    private func record(_ event: PolicyStore.Event) {
        let woken = state.withLock { state in
            state.events.append(event)
            let waiters = state.waiters
            state.waiters = [:]
            return waiters.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    var events: [PolicyStore.Event] { state.withLock { $0.events } }

    func reloads(_ cause: PolicyStore.ReloadCause) -> [PolicyStore.ReloadReport] {
        events.compactMap { event in
            if case .reloaded(let report) = event, report.cause == cause { return report }
            return nil
        }
    }

    struct Timeout: Error {}

    /// Returns once `condition` holds, checked now and after every event;
    /// fails the test after `limit`. The default is generous on purpose:
    /// the whole test suite shares a few threads with the store's watch, so
    /// on a loaded machine a reload can wait many seconds for its turn. How
    /// fast reloads come is measured in PolicyStoreLatencyTests, not bounded
    /// here.
    func wait(
        _ what: String, limit: Duration = .seconds(60), sourceLocation: Testing.SourceLocation = #_sourceLocation,
        until condition: ([PolicyStore.Event]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + limit
        while true {
            let seen = state.withLock { $0.events.count }
            if condition(events) { return }
            guard await nextEvent(after: seen, before: deadline) else {
                if condition(events) { return }
                try Task.checkCancellation()
                Issue.record("waited \(limit) for \(what); events: \(events)", sourceLocation: sourceLocation)
                throw Timeout()
            }
        }
    }

    /// Returns once `condition` holds or `sleepers` tasks sleep on `clock`:
    /// what a test stepping a manual clock waits for after each step, since
    /// the watch either gets where the test wants or waits on the clock
    /// again. Returns whether `condition` holds.
    func wait(
        _ what: String, orSleeperOn clock: ManualClock, sleepers: Int = 1, limit: Duration = .seconds(60),
        sourceLocation: Testing.SourceLocation = #_sourceLocation, until condition: @escaping @Sendable () -> Bool
    ) async throws -> Bool {
        let done = await withTaskGroup(of: Bool.self) { group in
            group.addTask { (try? await self.wait(what, limit: limit, sourceLocation: sourceLocation) { _ in condition() }) != nil }
            group.addTask {
                await clock.sleepers(atLeast: sleepers)
                return !Task.isCancelled
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if condition() { return true }
        guard done else { throw Timeout() }
        return false
    }

    /// Suspends until there are more than `seen` events (`true`), until
    /// `deadline` or until cancelled (`false`).
    private func nextEvent(after seen: Int, before deadline: ContinuousClock.Instant) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = self.state.withLock { state in
                            if state.events.count > seen || Task.isCancelled { return true }
                            state.waiters[id] = (seen, continuation)
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    self.state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
                }
                return !Task.isCancelled
            }
            // The guard against a store that never publishes again.
            group.addTask {
                try? await ContinuousClock().sleep(until: deadline)
                return false
            }
            let result = await group.next() ?? false
            group.cancelAll()
            return result
        }
    }
}
