import Metrics
import RetryPolicyCore
import RetryPolicyMetricCatalogue

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

/// The store's gauges (`MetricCatalogue.storeGeneration` and the entries
/// after it), each with the attribute `retry_policy.store.directory`.
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
        func gauge(_ metric: MetricCatalogue.Metric) -> Gauge {
            Gauge(label: metric.name, dimensions: metric.dimensions(directory), factory: factory)
        }
        generation = gauge(MetricCatalogue.storeGeneration)
        policies = gauge(MetricCatalogue.storePolicies)
        problemFiles = gauge(MetricCatalogue.storeProblemFiles)
        pendingRemovals = gauge(MetricCatalogue.storePendingRemovals)
        lastReload = gauge(MetricCatalogue.storeLastReload)
        lastChange = gauge(MetricCatalogue.storeLastChange)
        staleSince = gauge(MetricCatalogue.storeStaleSince)
        watching = gauge(MetricCatalogue.storeWatching)
        watching.record(0)
    }
}
