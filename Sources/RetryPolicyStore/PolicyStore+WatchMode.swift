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
}
