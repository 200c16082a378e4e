import Logging
import RetryPolicyCore

extension PolicyStore {
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
}
