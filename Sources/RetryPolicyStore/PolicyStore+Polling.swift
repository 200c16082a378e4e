import RetryPolicyCore

extension PolicyStore {
    /// Polls the directory every `interval` on `clock` and reloads on
    /// change, until the calling task is cancelled. Polling works on every
    /// platform and file system, at the cost of reading every file every
    /// interval; ``watch(debounce:rescanEvery:pollingFallback:clock:)``
    /// uses it where file-system events are not available.
    public func watch<C: Clock>(every interval: Duration, clock: C) async where C.Duration == Duration {
        await poll(every: interval, clock: clock, reason: nil)
    }

    /// ``watch(every:clock:)`` on the continuous clock.
    public func watch(every interval: Duration) async {
        await watch(every: interval, clock: ContinuousClock())
    }

    /// A file found absent at one poll is removed at the next poll that
    /// still finds it absent (one interval later).
    private func poll<C: Clock>(every interval: Duration, clock: C, reason: String?) async where C.Duration == Duration {
        setWatchMode(.polling(every: interval, reason: reason))
        defer { setWatchMode(.notWatching) }
        var lastPoll: Int?
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return }
            lastPoll = reload(cause: .poll, removals: .deferred(confirmingUpTo: lastPoll)).sequence
        }
    }
}
