import RetryPolicyCore

/// The one pending removal check of a watch: a task that signals the watch
/// a quiet period after a reload left files absent but in service.
final class RemovalConfirmations: Sendable {
    private let scheduled = LockedValue<Task<Void, Never>?>(nil)
    private let start: @Sendable (Int) -> Task<Void, Never>

    init<C: Clock>(
        signal: AsyncStream<PolicyStore.WatchSignal>.Continuation, after delay: Duration, clock: C
    ) where C.Duration == Duration {
        start = { marked in
            Task {
                do { try await clock.sleep(for: delay) } catch { return }
                signal.yield(.confirmRemovals(marked: marked))
            }
        }
    }

    /// Schedules a check for files marked at reload `marked`, unless one is
    /// scheduled already (it re-schedules itself if files stay pending).
    func schedule(marked: Int) {
        scheduled.withLock { task in
            if task == nil { task = start(marked) }
        }
    }

    /// The scheduled check is being handled.
    func fired() { scheduled.withLock { $0 = nil } }

    func cancel() {
        scheduled.withLock { task in
            task?.cancel()
            task = nil
        }
    }
}
