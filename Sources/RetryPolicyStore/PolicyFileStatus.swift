#if canImport(Glibc)
import Glibc
#endif

/// What the store knows of a policy file without reading it (links
/// followed): which file it is, how long, and when it last changed.
///
/// Taken before and after a file is read: any difference means a writer
/// was at work during the read, so what was read may be a prefix of what
/// it is writing and is not served.
struct PolicyFileStatus: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Int64
    var modifiedNanoseconds: Int64

    #if canImport(Glibc)
    /// The status of the file `path` leads to; `nil` when there is none.
    static func of(_ path: String) -> PolicyFileStatus? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return PolicyFileStatus(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modified: Int64(status.st_mtim.tv_sec), modifiedNanoseconds: Int64(status.st_mtim.tv_nsec))
    }

    /// How long ago the file last changed, by the system's real-time
    /// clock, which the file system stamps changes with. A time in the
    /// future (a skewed clock, a network file system) counts as now.
    var age: Duration {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Duration.seconds(Int64(now.tv_sec) - modified) + .nanoseconds(Int64(now.tv_nsec) - modifiedNanoseconds)
        return max(age, .zero)
    }
    #else
    static func of(_ path: String) -> PolicyFileStatus? { nil }
    var age: Duration { .seconds(Int64.max) }
    #endif
}
