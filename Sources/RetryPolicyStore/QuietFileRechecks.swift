import RetryPolicyCore

/// The one pending re-read of a watch for files a reload held back because
/// they were still being written: a task that signals the watch once the
/// earliest of them has been quiet for a whole quiet period.
final class QuietFileRechecks: Sendable {
    private struct Pending {
        var task: Task<Void, Never>
        var due: ContinuousClock.Instant
    }

    private let scheduled = LockedValue<Pending?>(nil)
    private let signal: AsyncStream<PolicyStore.WatchSignal>.Continuation

    init(signal: AsyncStream<PolicyStore.WatchSignal>.Continuation) {
        self.signal = signal
    }

    /// Schedules a re-read `delay` from now, unless one is due sooner.
    /// On the continuous clock whatever clock the watch runs on: what it
    /// waits for is the file system's time stamps, which a test clock
    /// does not move.
    func schedule(after delay: Duration) {
        let clock = ContinuousClock()
        let due = clock.now + delay
        scheduled.withLock { pending in
            if let pending, pending.due <= due { return }
            pending?.task.cancel()
            let signal = signal
            pending = Pending(
                task: Task {
                    do { try await clock.sleep(until: due) } catch { return }
                    signal.yield(.quietFiles)
                },
                due: due)
        }
    }

    /// The scheduled re-read is being handled.
    func fired() { scheduled.withLock { $0 = nil } }

    func cancel() {
        scheduled.withLock { pending in
            pending?.task.cancel()
            pending = nil
        }
    }
}
