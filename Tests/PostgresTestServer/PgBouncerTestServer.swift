import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// PgBouncer in transaction pooling in front of a ``PostgresTestServer``,
/// started by a test: the pooler that managed PostgreSQL offerings put in
/// front of a database, and one that drops `LISTEN`/`NOTIFY`.
///
/// The listening socket is made here, bound to port 0, and handed over the
/// way systemd's socket activation does (descriptor 3, `LISTEN_FDS=1`,
/// `LISTEN_PID`), so no port is chosen before it is bound. PgBouncer refuses
/// to run as root; as root it runs as the server's unprivileged user.
public final class PgBouncerTestServer: Sendable {
    public let port: Int
    public let directory: String
    private let pid: pid_t

    /// `pgbouncer` on `PATH` or in /usr/sbin.
    public static let binary: String? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin"]
        return path.map { $0 + "/pgbouncer" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Why pooler tests are skipped, or `nil` when they can run.
    public static let unavailableReason: String? = {
        if let reason = PostgresTestServer.unavailableReason { return reason }
        return binary == nil ? "pgbouncer not found on PATH or in /usr/sbin; install Debian's pgbouncer package" : nil
    }()

    private init(port: Int, directory: String, pid: pid_t) {
        self.port = port
        self.directory = directory
        self.pid = pid
    }

    /// Starts PgBouncer in front of `server`, for every database on it; the
    /// caller must ``stop()`` it.
    public static func start(in front: PostgresTestServer) throws -> PgBouncerTestServer {
        guard let binary else { throw PostgresTestServer.Failure(unavailableReason ?? "no pgbouncer") }
        try PostgresTestServer.ensureUser()
        removeLeftovers()
        let directory = "/tmp/retry-policy-pgbouncer-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let (socket, port) = try PostgresTestServer.boundSocket()
        defer { close(socket) }
        guard listen(socket, 128) == 0 else { throw PostgresTestServer.Failure("listen() failed: errno \(errno)") }
        // listen_addr and listen_port are ignored for the socket handed over.
        let configuration = """
            [databases]
            * = host=127.0.0.1 port=\(front.port)
            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = 6432
            unix_socket_dir =
            auth_type = trust
            auth_file = \(directory)/users.txt
            pool_mode = transaction
            logfile = \(directory)/pgbouncer.log
            pidfile = \(directory)/pgbouncer.pid
            ignore_startup_parameters = extra_float_digits

            """
        try configuration.write(toFile: directory + "/pgbouncer.ini", atomically: false, encoding: .utf8)
        try "\"\(PostgresTestServer.databaseUser)\" \"\"\n".write(toFile: directory + "/users.txt", atomically: false, encoding: .utf8)
        if geteuid() == 0 { try PostgresTestServer.run("/bin/chown", ["-R", PostgresTestServer.user, directory]) }
        let command = "LISTEN_PID=$$ LISTEN_FDS=1 exec \(binary) \(directory)/pgbouncer.ini"
        var arguments = ["/bin/sh", "-c", command]
        if geteuid() == 0 {
            guard let entry = getpwnam(PostgresTestServer.user) else { throw PostgresTestServer.Failure("no user \(PostgresTestServer.user)") }
            arguments = ["/usr/bin/setpriv", "--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--clear-groups", "--"] + arguments
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, directory + "/output", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, socket, 3)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environment = ["PATH=/usr/sbin:/usr/bin:/bin", "HOME=/tmp"]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        // The spawning thread blocks signals (the concurrency runtime's
        // threads do); a child inherits that mask and would never see the
        // SIGTERM that stops it. It starts with none blocked, defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard spawned == 0 else { throw PostgresTestServer.Failure("cannot run \(arguments[0]): error \(spawned)") }
        // Connections queue on the socket until PgBouncer takes them.
        return PgBouncerTestServer(port: port, directory: directory, pid: pid)
    }

    /// Poolers left by test processes that died without stopping them.
    private static func removeLeftovers() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix("retry-policy-pgbouncer-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 5, let owner = Int32(parts[parts.count - 2]), owner != getpid(),
                kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            let path = "/tmp/" + name
            if let text = try? String(contentsOfFile: path + "/pgbouncer.pid", encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                kill(pid, SIGTERM)
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// What PgBouncer logged, for failure messages.
    public var log: String { (try? String(contentsOfFile: directory + "/pgbouncer.log", encoding: .utf8)) ?? "" }

    /// Stops PgBouncer and removes its directory.
    public func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: directory)
    }
}
