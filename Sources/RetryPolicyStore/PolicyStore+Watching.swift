import Logging
import RetryPolicyCore

extension PolicyStore {
    /// How the store notices that files changed.
    public enum WatchMode: Hashable, Sendable, CustomStringConvertible {
        /// No watch is running; the store reloads only on ``PolicyStore/reload(force:)``.
        case notWatching
        /// File-system events (inotify), plus a safety re-scan every
        /// `rescanEvery` if set.
        case events(rescanEvery: Duration?)
        /// Re-reading every file every `every`. `reason` says why events are
        /// not used; `nil` when polling was asked for.
        case polling(every: Duration, reason: String?)

        public var description: String {
            switch self {
            case .notWatching: "not watching"
            case .events(let rescan?): "file-system events, re-scanning every \(rescan)"
            case .events(nil): "file-system events"
            case .polling(let every, nil): "polling every \(every)"
            case .polling(let every, let reason?): "polling every \(every) because \(reason)"
            }
        }
    }

    /// How the running watch notices changes now (it can change while it
    /// runs: a deleted directory turns events into polling until it is back).
    public var watchMode: WatchMode { currentWatchMode.withLock { $0 } }

    func setWatchMode(_ mode: WatchMode) {
        let changed = currentWatchMode.withLock { current in
            defer { current = mode }
            return current != mode
        }
        guard changed else { return }
        recordWatchModeGauge(mode)
        publish(.watchModeChanged(mode))
        switch mode {
        case .polling(_, let reason?):
            logger.warning("watching the policy directory by polling", metadata: ["path": .shown(directory), "mode": .shown("\(mode)"), "reason": .shown(reason)])
        default:
            logger.info("watching the policy directory", metadata: ["path": .shown(directory), "mode": .shown("\(mode)")])
        }
    }

    // MARK: Events

    /// Reloads whenever files change, until the calling task is cancelled.
    ///
    /// On Linux the store watches the directory with inotify: a burst of
    /// events (an editor's temp file and rename, `cp` over a file, a config
    /// map's `..data` swap, a writer that keeps the file open and writes in
    /// place) becomes one reload once no event came for `debounce` (or
    /// after ten times `debounce` if events never stop, so that a file
    /// rewritten in a loop still gets reloaded). The watch is established
    /// before the directory is read again, so no edit made between
    /// ``init(directory:loader:logger:onProblems:metricsFactory:)`` and this
    /// call is missed.
    ///
    /// - Every generation is one whole update. A reload that does not
    ///   follow a whole quiet period without events (the re-scan, events
    ///   that never stop) reads only files whose modification time is a
    ///   quiet period old; a younger one, maybe half-written, keeps its
    ///   previous version (``ReloadReport/deferred``) and is read by a
    ///   reload scheduled for when it is quiet. Files a config map
    ///   publishes through `..data` are complete before the swap and are
    ///   read at once; a swap during a reload makes it read again.
    /// - A file that disappears keeps its policy in service until it has
    ///   been absent for `debounce` and a re-read of the directory confirms
    ///   it (a ``ReloadCause/removalCheck`` reload); a file that comes back
    ///   in between (a deploy deleting and recreating files or the whole
    ///   directory) never leaves a gap.
    /// - A deleted or moved directory loses the watch: the store keeps the
    ///   policies it has, tries to watch the path again every `debounce`,
    ///   re-reads it every `pollingFallback`, and returns to events as soon
    ///   as the path is a directory again.
    /// - `rescanEvery` re-reads the directory even without events, because
    ///   network file systems and some container mounts do not report every
    ///   change; `nil` turns it off. The re-scan also notices a directory
    ///   path through a symlink that now leads elsewhere (a deploy's
    ///   `current` link) and moves the watch there.
    /// - Where events are not available at all (other platforms, inotify
    ///   limits exhausted), the store polls every `pollingFallback`, and
    ///   tries inotify again at each poll.
    ///
    /// ``watchMode``, ``health`` and ``events()`` say which mode is in use;
    /// every change of mode is logged. Cancelling the task stops the watcher
    /// thread and closes its descriptors before this method returns. Run
    /// one watch per store: ``watchMode`` reports the latest one started.
    public func watch<C: Clock>(
        debounce: Duration = .milliseconds(200),
        rescanEvery: Duration? = .seconds(60),
        pollingFallback: Duration = .seconds(5),
        clock: C
    ) async where C.Duration == Duration {
        let (signals, signal) = AsyncStream<WatchSignal>.makeStream()
        let confirmations = RemovalConfirmations(signal: signal, after: debounce, clock: clock)
        let rechecks = QuietFileRechecks(signal: signal)
        defer {
            confirmations.cancel()
            rechecks.cancel()
            setWatchMode(.notWatching)
        }
        var lastPoll: Int?
        var watcher: (any DirectoryWatcher)?
        while watcher == nil {
            do throws(DirectoryWatchError) {
                watcher = try makeDirectoryWatcher(directory: directory, logger: logger) { signal.yield(.filesystem) }
            } catch {
                // inotify may come back (another process released its
                // instances): try again at every poll.
                setWatchMode(.polling(every: pollingFallback, reason: error.description))
                lastPoll = reload(cause: .poll, removals: .deferred(confirmingUpTo: lastPoll)).sequence
                do { try await clock.sleep(for: pollingFallback) } catch { return }
            }
        }
        guard let watcher else { return }
        defer { watcher.stop() }
        let timers = WatchTimers(quiet: debounce, confirmations: confirmations, rechecks: rechecks)
        guard
            let handled = await establish(
                watcher, debounce: debounce, rescanEvery: rescanEvery, pollingFallback: pollingFallback,
                timers: timers, clock: clock)
        else { return }
        await withTaskGroup(of: Void.self) { group in
            if let rescanEvery {
                group.addTask {
                    while true {
                        do { try await clock.sleep(for: rescanEvery) } catch { return }
                        signal.yield(.rescan)
                    }
                }
            }
            await follow(
                signals, from: watcher, handled: handled, debounce: debounce, rescanEvery: rescanEvery,
                pollingFallback: pollingFallback, timers: timers, clock: clock)
            group.cancelAll()
        }
    }

    /// ``watch(debounce:rescanEvery:pollingFallback:clock:)`` on the
    /// continuous clock: what a service calls.
    public func watch(
        debounce: Duration = .milliseconds(200),
        rescanEvery: Duration? = .seconds(60),
        pollingFallback: Duration = .seconds(5)
    ) async {
        await watch(debounce: debounce, rescanEvery: rescanEvery, pollingFallback: pollingFallback, clock: ContinuousClock())
    }

    enum WatchSignal: Sendable {
        case filesystem
        case rescan
        /// Files went missing at reload `marked`; a quiet period has passed.
        case confirmRemovals(marked: Int)
        /// Files held back while they were being written are quiet now.
        case quietFiles
    }

    /// What a watch schedules after its reloads.
    struct WatchTimers: Sendable {
        var quiet: Duration
        var confirmations: RemovalConfirmations
        var rechecks: QuietFileRechecks
    }

    /// A watch's reload. Removals wait for confirmation, which is
    /// scheduled a quiet period after a reload that leaves files pending.
    ///
    /// `settled` says the directory raised no event for a whole quiet
    /// period, so every file in it is quiet. Otherwise (the safety re-scan,
    /// events that never stop) a file changed less than a quiet period ago
    /// may be half-written: it is not read, and a reload is scheduled for
    /// when it is quiet.
    private func watchReload(
        _ cause: ReloadCause, confirmingUpTo: Int? = nil, settled: Bool, _ timers: WatchTimers
    ) {
        let report = reload(
            cause: cause, removals: .deferred(confirmingUpTo: confirmingUpTo), quiet: settled ? nil : timers.quiet)
        if !report.pendingRemovals.isEmpty { timers.confirmations.schedule(marked: report.sequence) }
        if let delay = report.recheckAfter { timers.rechecks.schedule(after: delay) }
    }

    /// Handles signals until cancelled.
    private func follow<C: Clock>(
        _ signals: AsyncStream<WatchSignal>, from watcher: any DirectoryWatcher, handled: Int,
        debounce: Duration, rescanEvery: Duration?, pollingFallback: Duration,
        timers: WatchTimers, clock: C
    ) async where C.Duration == Duration {
        // The watcher's change count that the last reload covers.
        var handled = handled
        // When events were last seen (to within a quiet period).
        var lastEvents = clock.now
        for await signal in signals {
            switch signal {
            case .quietFiles:
                timers.rechecks.fired()
                watchReload(.fileEvent, settled: false, timers)
            case .confirmRemovals(let marked):
                timers.confirmations.fired()
                // Events since the last reload (a file deleted again, or
                // back): their own reload comes first, and the absence must
                // last another quiet period.
                if watcher.drain().changes != handled || lastEvents.duration(to: clock.now) < debounce {
                    timers.confirmations.schedule(marked: marked)
                    continue
                }
                watchReload(.removalCheck, confirmingUpTo: marked, settled: true, timers)
            case .rescan:
                guard watcher.watchesCurrentPath else {
                    logger.warning(
                        "the policy directory's path now leads to another directory; watching that one",
                        metadata: ["path": .shown(directory)])
                    guard
                        let covered = await establish(
                            watcher, debounce: debounce, rescanEvery: rescanEvery, pollingFallback: pollingFallback,
                            timers: timers, clock: clock)
                    else { return }
                    handled = covered
                    continue
                }
                watchReload(.rescan, settled: false, timers)
            case .filesystem:
                var activity = watcher.drain()
                var settled = true
                if activity.lost == nil {
                    if activity.changes == handled { continue }
                    lastEvents = clock.now
                    // Wait until a whole quiet period passes without events,
                    // or for ten of them while events keep coming.
                    let start = clock.now
                    while true {
                        do { try await clock.sleep(for: debounce) } catch { return }
                        let now = watcher.drain()
                        if now == activity { break }
                        activity = now
                        lastEvents = clock.now
                        if activity.lost != nil { break }
                        if start.duration(to: clock.now) >= debounce * 10 {
                            settled = false
                            break
                        }
                    }
                }
                if let lost = activity.lost {
                    logger.warning("lost the watch on the policy directory", metadata: ["path": .shown(directory), "reason": .shown(lost)])
                    guard
                        let covered = await establish(
                            watcher, debounce: debounce, rescanEvery: rescanEvery, pollingFallback: pollingFallback,
                            timers: timers, clock: clock)
                    else { return }
                    handled = covered
                    continue
                }
                handled = activity.changes
                watchReload(.fileEvent, settled: settled, timers)
            }
        }
    }

    /// Establishes the watch, then reloads once to catch what changed
    /// while there was none. While it cannot be established, tries again
    /// every `debounce` (a directory deleted and recreated is watched again
    /// within a quiet period) and re-reads the directory every
    /// `pollingFallback`. Returns the watcher's change count that the
    /// reload covers, or `nil` if cancelled first.
    private func establish<C: Clock>(
        _ watcher: any DirectoryWatcher, debounce: Duration, rescanEvery: Duration?, pollingFallback: Duration,
        timers: WatchTimers, clock: C
    ) async -> Int? where C.Duration == Duration {
        let retry = min(max(debounce, .milliseconds(1)), pollingFallback)
        var sincePoll = pollingFallback
        var lastPoll: Int?
        while !Task.isCancelled {
            do throws(DirectoryWatchError) {
                try watcher.rewatch()
                setWatchMode(.events(rescanEvery: rescanEvery))
                // Drained before reading: an event during the reload is
                // counted after it, so it gets its own reload.
                let covered = watcher.drain().changes
                watchReload(.watchStarted, settled: true, timers)
                return covered
            } catch {
                setWatchMode(.polling(every: pollingFallback, reason: error.description))
                if sincePoll >= pollingFallback {
                    lastPoll = reload(cause: .poll, removals: .deferred(confirmingUpTo: lastPoll)).sequence
                    sincePoll = .zero
                }
            }
            do { try await clock.sleep(for: retry) } catch { return nil }
            sincePoll += retry
        }
        return nil
    }

    // MARK: Polling

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
