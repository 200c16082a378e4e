// Glibc only: the static Linux SDK (Musl) types `pthread_t` differently
// and is left to polling.
#if canImport(Glibc)
import Glibc
import Logging
import RetryPolicyCore

/// Watches one directory with Linux inotify.
///
/// A dedicated thread blocks in `poll(2)` on the inotify descriptor and on
/// the read end of a pipe; ``stop()`` writes to the pipe, so shutting down
/// needs no timeout and no busy loop. The thread only counts events and
/// calls `notify`; the store decides when to reload.
///
/// The mask covers every way a policy file is replaced on disk:
/// - `IN_CLOSE_WRITE`: `cp`, `>` redirection and editors that write in
///   place; the event comes when the writer closes the file.
/// - `IN_MODIFY`: a writer that keeps the file open and writes in place
///   (or truncates it) never closes it; every `write(2)` raises this event,
///   which only restarts the store's quiet period, so a slow writer costs
///   one reload per quiet period at most (and the ten-period cap).
/// - `IN_MOVED_TO` / `IN_MOVED_FROM`: editors and tools that write a temp
///   file and rename it over the policy, and Kubernetes config maps, whose
///   `..data` symlink is replaced by renaming `..data_tmp` over it.
/// - `IN_CREATE` / `IN_DELETE` / `IN_ATTRIB`: files added, removed, or
///   made readable; symlinks created.
/// - `IN_DELETE_SELF` / `IN_MOVE_SELF` (and the `IN_IGNORED` and `IN_UNMOUNT`
///   the kernel adds): the directory itself is gone, so the watch is lost
///   and the store must call ``rewatch()``.
///
/// The watch is on the directory only (inotify is not recursive). That is
/// enough for config maps: their files are symlinks into a timestamped
/// directory, and the switch to new content is always a rename of `..data`
/// in the watched directory.
final class InotifyDirectoryWatcher: DirectoryWatcher {
    static let mask: UInt32 =
        UInt32(IN_CLOSE_WRITE) | UInt32(IN_MODIFY) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM) | UInt32(IN_CREATE)
        | UInt32(IN_DELETE) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR)

    private struct State {
        /// The current watch descriptor; events of any other are stale.
        var watch: Int32?
        /// What the path resolved to just before it was watched.
        var target: String?
        var lost: String? = "not watching yet"
        /// Set when the thread could not go on; no rewatch can help then.
        var failed: String?
        var changes = 0
        var notifyArmed = true
        var thread: pthread_t?
    }

    let directory: String
    private let inotify: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let logger: Logger
    private let notify: @Sendable () -> Void
    private let state = LockedValue(State())

    init(directory: String, logger: Logger, notify: @escaping @Sendable () -> Void) throws(DirectoryWatchError) {
        let inotify = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard inotify >= 0 else { throw Self.error("cannot create an inotify instance", errno: errno) }
        // `pipe2` is not visible to Swift; a `fork` racing these few lines
        // could inherit the pipe, which is harmless (it carries no data).
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let code = errno
            close(inotify)
            throw Self.error("cannot create the watcher's wake-up pipe", errno: code)
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        self.directory = directory
        self.inotify = inotify
        self.wakeRead = ends[0]
        self.wakeWrite = ends[1]
        self.logger = logger
        self.notify = notify

        let body = Unmanaged.passRetained(ThreadBody { [self] in self.run() }).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, body)
        guard created == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(body).release()
            close(inotify)
            close(ends[0])
            close(ends[1])
            throw Self.error("cannot start the watcher thread", errno: created)
        }
        state.withLock { $0.thread = thread }
    }

    func rewatch() throws(DirectoryWatchError) {
        try state.withLock { state throws(DirectoryWatchError) in
            if let failed = state.failed { throw DirectoryWatchError(description: failed) }
            if let old = state.watch {
                // A directory moved away keeps its watch; drop it so that
                // the path is watched, not the old inode.
                inotify_rm_watch(inotify, old)
                state.watch = nil
            }
            // Resolved first: if the path switches in between, the next
            // check finds a difference and watches again.
            let target = Self.resolve(directory)
            let watch = inotify_add_watch(inotify, directory, Self.mask)
            guard watch >= 0 else { throw Self.error("cannot watch \(directory)", errno: errno) }
            state.watch = watch
            state.target = target
            state.lost = nil
        }
    }

    var watchesCurrentPath: Bool {
        let now = Self.resolve(directory)
        return state.withLock { $0.watch != nil && $0.target == now }
    }

    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    func drain() -> DirectoryActivity {
        state.withLock { state in
            state.notifyArmed = true
            return DirectoryActivity(changes: state.changes, lost: state.lost)
        }
    }

    func stop() {
        let thread: pthread_t? = state.withLock { state in
            defer { state.thread = nil }
            return state.thread
        }
        guard let thread else { return }
        var byte: UInt8 = 1
        while write(wakeWrite, &byte, 1) < 0 && errno == EINTR {}
        // The thread leaves its poll at once; joining it before closing
        // means no descriptor is closed while it is still in use.
        pthread_join(thread, nil)
        close(inotify)
        close(wakeRead)
        close(wakeWrite)
    }

    // MARK: The thread

    private func run() {
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        // Room for many events; one name is at most NAME_MAX bytes.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                fail(Self.error("waiting for inotify events failed", errno: errno).description)
                return
            }
            if descriptors[1].revents != 0 { return }
            if descriptors[0].revents != 0, !readEvents(into: buffer) { return }
        }
    }

    /// Reads every queued event; false if the descriptor failed.
    private func readEvents(into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        while true {
            let count = read(inotify, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return true }
                fail(Self.error("reading inotify events failed", errno: errno).description)
                return false
            }
            if count == 0 { return true }
            record(Self.events(in: UnsafeRawBufferPointer(rebasing: buffer[..<count])))
        }
    }

    private func record(_ events: [Event]) {
        let wake: Bool = state.withLock { state in
            let before = state.changes
            for event in events {
                logger.trace(
                    "inotify event",
                    metadata: ["directory": .shown(directory), "name": .shown(event.name), "events": "\(Self.describe(event.mask))"])
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // The kernel dropped events: something changed.
                    state.changes += 1
                    continue
                }
                guard event.watch == state.watch else { continue }
                if let reason = Self.lossReason(event.mask) {
                    state.lost = reason
                    if event.mask & UInt32(IN_IGNORED) != 0 { state.watch = nil }
                }
                state.changes += 1
            }
            guard state.changes != before, state.notifyArmed else { return false }
            state.notifyArmed = false
            return true
        }
        if wake { notify() }
    }

    private func fail(_ reason: String) {
        logger.error("the directory watcher stopped", metadata: ["directory": .shown(directory), "reason": .shown(reason)])
        let wake: Bool = state.withLock { state in
            state.failed = reason
            state.lost = reason
            state.changes += 1
            defer { state.notifyArmed = false }
            return state.notifyArmed
        }
        if wake { notify() }
    }

    // MARK: Events

    struct Event {
        var watch: Int32
        var mask: UInt32
        var name: String
    }

    /// Splits a `read(2)` of an inotify descriptor into events: each is a
    /// 16-byte header (wd, mask, cookie, len) and `len` bytes of
    /// NUL-padded name.
    static func events(in bytes: UnsafeRawBufferPointer) -> [Event] {
        var events: [Event] = []
        var offset = 0
        while offset + 16 <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let end = min(offset + 16 + length, bytes.count)
            let nameBytes = bytes[(offset + 16)..<end].prefix { $0 != 0 }
            events.append(Event(watch: watch, mask: mask, name: String(decoding: nameBytes, as: UTF8.self)))
            offset = end
        }
        return events
    }

    static func lossReason(_ mask: UInt32) -> String? {
        if mask & UInt32(IN_DELETE_SELF) != 0 { return "the directory was deleted" }
        if mask & UInt32(IN_MOVE_SELF) != 0 { return "the directory was moved or renamed" }
        if mask & UInt32(IN_UNMOUNT) != 0 { return "the directory's file system was unmounted" }
        if mask & UInt32(IN_IGNORED) != 0 { return "the kernel removed the watch" }
        return nil
    }

    static func describe(_ mask: UInt32) -> String {
        let names: [(Int32, String)] = [
            (IN_ACCESS, "ACCESS"), (IN_MODIFY, "MODIFY"), (IN_ATTRIB, "ATTRIB"), (IN_CLOSE_WRITE, "CLOSE_WRITE"),
            (IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"), (IN_OPEN, "OPEN"), (IN_MOVED_FROM, "MOVED_FROM"),
            (IN_MOVED_TO, "MOVED_TO"), (IN_CREATE, "CREATE"), (IN_DELETE, "DELETE"), (IN_DELETE_SELF, "DELETE_SELF"),
            (IN_MOVE_SELF, "MOVE_SELF"), (IN_UNMOUNT, "UNMOUNT"), (IN_Q_OVERFLOW, "Q_OVERFLOW"),
            (IN_IGNORED, "IGNORED"), (IN_ISDIR, "ISDIR"),
        ]
        return names.filter { mask & UInt32($0.0) != 0 }.map(\.1).joined(separator: "|")
    }

    static func error(_ what: String, errno code: Int32) -> DirectoryWatchError {
        let detail: String
        switch code {
        case EMFILE where what.contains("inotify instance"), ENFILE:
            detail = "the inotify instance limit is exhausted (sysctl fs.inotify.max_user_instances)"
        case ENOSPC: detail = "the inotify watch limit is exhausted (sysctl fs.inotify.max_user_watches)"
        case ENOENT: detail = "it does not exist"
        case ENOTDIR: detail = "it is not a directory"
        default: detail = String(cString: strerror(code))
        }
        return DirectoryWatchError(description: "\(what): \(detail)")
    }
}

/// The closure a watcher thread runs, boxed to cross `pthread_create`.
private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
#endif
