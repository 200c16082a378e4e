import Logging

/// What a directory watcher has seen since the store last asked.
struct DirectoryActivity: Sendable, Equatable {
    /// Counts every change event since the watcher started; the store
    /// compares it across a quiet period to know that a burst has ended.
    var changes: Int
    /// Set when the watch itself is gone (the directory was deleted or
    /// moved away): events will not come until ``DirectoryWatcher/rewatch()``
    /// succeeds.
    var lost: String?
}

/// Why file-system events cannot be used, so the store polls instead.
struct DirectoryWatchError: Error, Sendable, CustomStringConvertible {
    var description: String
}

/// A source of "something in this directory may have changed" signals.
///
/// The watcher only says *that* something changed, never *what*: the store
/// re-reads the directory and compares contents, which is the one way to be
/// right about editors' temp files, renames and symlink swaps alike. The
/// protocol keeps the store free of any platform's event API; on platforms
/// without an implementation ``makeDirectoryWatcher(directory:logger:notify:)``
/// throws and the store polls.
protocol DirectoryWatcher: AnyObject, Sendable {
    /// (Re-)establishes the watch on the directory's path. Called once at
    /// start and again after the watch was lost; throws while the path is
    /// missing or the system's watch limit is exhausted.
    func rewatch() throws(DirectoryWatchError)

    /// Whether the watch is on the directory the path resolves to now. A
    /// path through a symlink switched to another directory (a deploy's
    /// `current` link) keeps the old directory's watch, and raises no
    /// event in it.
    var watchesCurrentPath: Bool { get }

    /// The activity so far. Also re-arms `notify`, which the watcher calls
    /// at most once between two calls of this method, so a storm of events
    /// costs the store one wake-up.
    func drain() -> DirectoryActivity

    /// Stops watching and releases every resource (threads, descriptors)
    /// before returning. Idempotent.
    func stop()
}

#if canImport(Glibc)
/// The platform's watcher for `directory`, calling `notify` from its own
/// thread when there is activity to ``DirectoryWatcher/drain()``. The watch
/// is not established yet: call ``DirectoryWatcher/rewatch()``.
func makeDirectoryWatcher(
    directory: String, logger: Logger, notify: @escaping @Sendable () -> Void
) throws(DirectoryWatchError) -> any DirectoryWatcher {
    try InotifyDirectoryWatcher(directory: directory, logger: logger, notify: notify)
}
#else
func makeDirectoryWatcher(
    directory: String, logger: Logger, notify: @escaping @Sendable () -> Void
) throws(DirectoryWatchError) -> any DirectoryWatcher {
    throw DirectoryWatchError(description: "file-system events are implemented with inotify, on Linux with Glibc only")
}
#endif
