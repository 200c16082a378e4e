import Metrics
import RetryPolicyCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PolicyStore {
    /// What a service needs to know to alert on its policies: which
    /// generation it serves, since when, whether some of it is a last good
    /// version kept because the current file does not load, and how the
    /// store notices changes.
    public struct Health: Sendable {
        /// The served generation (``Snapshot/generation``).
        public var generation: Int
        /// Policies served.
        public var policies: Int
        /// When the store last read the directory (any reload, also one
        /// that found nothing changed); `nil` while it never could.
        public var lastReload: Date?
        /// When the served generation last changed.
        public var lastChange: Date?
        /// Files (or the directory) whose current content does not load,
        /// with the diagnostics; what the store serves for them is the
        /// last good version (``Snapshot/problems``).
        public var problems: [String: PolicyFileProblem]
        /// Since when ``problems`` has not been empty: the store has served
        /// at least one stale policy (or none could be read) since then.
        public var staleSince: Date?
        /// Policies served while their file is absent, until the removal
        /// is confirmed (``Snapshot/pendingRemovals``).
        public var pendingRemovals: [String]
        /// Events, polling, or no watch.
        public var watchMode: WatchMode

        /// Whether the store has been serving a stale policy (or could not
        /// read the directory) for at least `duration` at `now`: what an
        /// alert on "stale for 10 minutes" checks.
        public func isStale(for duration: Duration, at now: Date = Date()) -> Bool {
            guard let staleSince else { return false }
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return now.timeIntervalSince(staleSince) >= seconds
        }
    }

    /// The store's state now. Takes no lock that a reload holds while it
    /// reads files. The generation, its problems, since when it is stale
    /// and when it changed are published together, in one atomic store, so
    /// they always describe the same generation.
    public var health: Health {
        let published = published
        let snapshot = published.snapshot
        let lastReload = healthState.withLock { $0.lastReload }
        return Health(
            generation: snapshot.generation, policies: snapshot.deciders.count, lastReload: lastReload,
            lastChange: published.lastChange, problems: snapshot.problems, staleSince: published.staleSince,
            pendingRemovals: snapshot.pendingRemovals, watchMode: watchMode)
    }

    struct HealthState: Sendable {
        var lastReload: Date?
    }

    /// Updates ``health`` and the gauges after a reload at `now`.
    func recordHealth(after report: ReloadReport, at now: Date) {
        let published = published
        let snapshot = published.snapshot
        let directoryRead = snapshot.problems[directory] == nil
        let lastReload = healthState.withLock { state in
            if directoryRead { state.lastReload = now }
            return state.lastReload
        }
        guard let gauges else { return }
        gauges.generation.record(snapshot.generation)
        gauges.policies.record(snapshot.deciders.count)
        gauges.problemFiles.record(snapshot.problems.count)
        gauges.pendingRemovals.record(snapshot.pendingRemovals.count)
        gauges.lastReload.record(lastReload?.timeIntervalSince1970 ?? 0)
        gauges.lastChange.record(published.lastChange?.timeIntervalSince1970 ?? 0)
        gauges.staleSince.record(published.staleSince?.timeIntervalSince1970 ?? 0)
    }

    func recordWatchModeGauge(_ mode: WatchMode) {
        guard let gauges else { return }
        switch mode {
        case .notWatching: gauges.watching.record(0)
        case .polling: gauges.watching.record(1)
        case .events: gauges.watching.record(2)
        }
    }
}

/// The store's gauges, each with the attribute `retry_policy.store.directory`
/// (names in OpenTelemetry's style, as the executor's metrics):
///
/// | gauge | unit | value |
/// |---|---|---|
/// | `retry_policy.store.generation` | 1 | the served generation |
/// | `retry_policy.store.policies` | {policy} | policies served |
/// | `retry_policy.store.problem_files` | {file} | files (or the directory) whose current content does not load |
/// | `retry_policy.store.pending_removals` | {policy} | policies served while their file is absent |
/// | `retry_policy.store.last_reload.timestamp` | s | Unix time the directory was last read |
/// | `retry_policy.store.last_change.timestamp` | s | Unix time the generation last changed |
/// | `retry_policy.store.stale_since.timestamp` | s | Unix time since which a problem has been open; 0 when none |
/// | `retry_policy.store.watching` | 1 | 2 events, 1 polling, 0 not watching |
struct StoreGauges: Sendable {
    let generation: Gauge
    let policies: Gauge
    let problemFiles: Gauge
    let pendingRemovals: Gauge
    let lastReload: Gauge
    let lastChange: Gauge
    let staleSince: Gauge
    let watching: Gauge

    init(directory: String, factory: any MetricsFactory) {
        func gauge(_ name: String) -> Gauge {
            Gauge(label: "retry_policy.store." + name, dimensions: [("retry_policy.store.directory", directory)], factory: factory)
        }
        generation = gauge("generation")
        policies = gauge("policies")
        problemFiles = gauge("problem_files")
        pendingRemovals = gauge("pending_removals")
        lastReload = gauge("last_reload.timestamp")
        lastChange = gauge("last_change.timestamp")
        staleSince = gauge("stale_since.timestamp")
        watching = gauge("watching")
        watching.record(0)
    }
}
