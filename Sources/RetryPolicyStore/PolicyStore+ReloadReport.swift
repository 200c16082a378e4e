extension PolicyStore {
    /// What one reload did.
    public struct ReloadReport: Hashable, Sendable {
        public var added: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        /// Policies whose file is absent but which stay in service until
        /// the absence is confirmed a quiet period later; they are then
        /// ``removed`` (or served again if the file came back).
        public var pendingRemovals: [String] = []
        /// Problems found in this reload (including files that still fail).
        public var problems: [PolicyFileProblem] = []
        /// Whether the directory differed from the last reload at all.
        public var filesChanged = false
        /// Files not read by this reload because they changed less than a
        /// quiet period ago or while they were read: a writer may be
        /// half-way through them. Their previous version stays in service;
        /// a watch reads them again once they are quiet.
        public var deferred: [String] = []
        /// What started this reload.
        public var cause: ReloadCause = .onDemand
        /// The reload's place in the store's sequence of reloads.
        var sequence = 0
        /// When the earliest of ``deferred`` is due to be read again.
        var recheckAfter: Duration?
    }

    /// What started a reload.
    public enum ReloadCause: String, Hashable, Sendable {
        /// The store's creation.
        case initial
        /// A call of ``PolicyStore/reload(force:)``.
        case onDemand = "on_demand"
        /// File-system events, after the quiet period.
        case fileEvent = "file_event"
        /// The slow safety re-scan of an event-driven watch, for file
        /// systems that miss events.
        case rescan
        /// A watch (re-)established: catches changes made while there was
        /// none.
        case watchStarted = "watch_started"
        /// Polling, requested or as the fallback.
        case poll
        /// A quiet period after files disappeared: re-reads the directory
        /// and applies the removals it confirms.
        case removalCheck = "removal_check"
    }
}
