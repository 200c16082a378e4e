import Foundation
import RetryPolicyCore

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL server for integration tests: `initdb` into a
/// temporary directory, `pg_ctl start` on a free loopback port, trust
/// authentication, stopped and removed by ``stop()`` (and, for the shared
/// instance, when the test process exits).
///
/// PostgreSQL refuses to run as root, so as root the server runs as the
/// unprivileged system user `retrypolicy` (created if missing).
public final class PostgresTestServer: Sendable {
    public struct Binaries: Sendable {
        public let directory: String
        public var initdb: String { directory + "/initdb" }
        public var pgCtl: String { directory + "/pg_ctl" }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public static let user = "retrypolicy"
    public static let databaseUser = "fleet"

    /// The server binaries: Debian's `/usr/lib/postgresql/<version>/bin`
    /// (the newest version), else `initdb` on `PATH`.
    public static let binaries: Binaries? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap { name in Int(name).map { (number: $0, name: name) } }
            .sorted { $0.number > $1.number }
        for version in versions {
            let directory = "\(root)/\(version.name)/bin"
            if FileManager.default.isExecutableFile(atPath: directory + "/initdb"),
               FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
            {
                return Binaries(directory: directory)
            }
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        where FileManager.default.isExecutableFile(atPath: directory + "/initdb")
            && FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
        {
            return Binaries(directory: directory)
        }
        return nil
    }()

    /// Why PostgreSQL tests are skipped, or `nil` when they can run.
    public static let unavailableReason: String? = {
        guard binaries != nil else {
            let reason = "PostgreSQL server binaries (initdb, pg_ctl) not found in /usr/lib/postgresql/*/bin or PATH; install Debian's postgresql package"
            print("note: skipping PostgreSQL tests: \(reason)")
            return reason
        }
        return nil
    }()

    /// How a server differs from the default (trust over loopback, no TLS).
    public struct Options: Sendable {
        /// Server settings (`-c NAME=VALUE`); `{dir}` in a value stands for
        /// the server's directory, where ``files`` are copied.
        public var settings: [String: String] = [:]
        /// Files copied into the server's directory, owned by the server's
        /// user and readable by it alone (a TLS key must be).
        public var files: [String] = []
        /// The lines of `pg_hba.conf`, when not the default.
        public var hba: [String]?

        public init(settings: [String: String] = [:], files: [String] = [], hba: [String]? = nil) {
            self.settings = settings
            self.files = files
            self.hba = hba
        }
    }

    public let port: Int
    public let dataDirectory: String
    private let binaries: Binaries
    private let options: Options
    private let running = LockedValue(false)

    /// `postgres://fleet@127.0.0.1:PORT/postgres`
    public var url: String { "postgres://\(Self.databaseUser)@127.0.0.1:\(port)/postgres" }

    private init(port: Int, dataDirectory: String, binaries: Binaries, options: Options = Options()) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.binaries = binaries
        self.options = options
    }

    /// One server for the whole test process, started on first use and
    /// stopped when the process exits.
    public static func shared() throws -> PostgresTestServer {
        try sharedServer.withLock { server in
            if let server { return server }
            let started = try start()
            server = started
            atexit { PostgresTestServer.stopShared() }
            return started
        }
    }

    private static let sharedServer = LockedValue<PostgresTestServer?>(nil)

    private static func stopShared() {
        let server = sharedServer.withLock { server in
            defer { server = nil }
            return server
        }
        server?.stop()
    }

    private static let template = LockedValue<String?>(nil)

    /// Servers and directories left by test processes that died without
    /// cleaning up (a crash skips `atexit`).
    private static func removeLeftovers(_ binaries: Binaries) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/tmp")) ?? []
        for name in names where name.hasPrefix("retry-policy-pg-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 5, let pid = Int32(parts[parts.count - 2]), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let path = "/tmp/" + name
            if FileManager.default.fileExists(atPath: path + "/data/postmaster.pid") {
                try? runAsServerUser(binaries.pgCtl, ["-D", path + "/data", "-m", "immediate", "-w", "-t", "10", "stop"])
            }
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    private static func removeTemplate() {
        if let path = template.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Starts a new server; the caller must ``stop()`` it (use `defer`).
    public static func start(_ options: Options = Options()) throws -> PostgresTestServer {
        guard let binaries else { throw Failure(unavailableReason ?? "no PostgreSQL") }
        try ensureUser()
        removeLeftovers(binaries)
        let base = "/tmp/retry-policy-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
        let data = base + "/data"
        var server = PostgresTestServer(port: try freePort(), dataDirectory: base, binaries: binaries, options: options)
        do {
            for file in options.files {
                let copy = base + "/" + URL(fileURLWithPath: file).lastPathComponent
                try run("/bin/cp", [file, copy])
                try run("/bin/chmod", ["600", copy])
            }
            if geteuid() == 0 { try run("/bin/chown", ["-R", user, base]) }
            try template.withLock { template in
                // initdb takes seconds: the first cluster is kept as a
                // template that later servers copy.
                if let template {
                    try run("/bin/cp", ["-a", template, data])
                } else {
                    try runAsServerUser(binaries.initdb, [
                        "-D", data, "-U", databaseUser, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C",
                    ])
                    let copy = "/tmp/retry-policy-pg-template-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                    try run("/bin/cp", ["-a", data, copy])
                    template = copy
                    atexit { PostgresTestServer.removeTemplate() }
                }
            }
            if let hba = options.hba {
                try (hba.joined(separator: "\n") + "\n").write(toFile: data + "/pg_hba.conf", atomically: false, encoding: .utf8)
                if geteuid() == 0 { try run("/bin/chown", [user, data + "/pg_hba.conf"]) }
            }
            // The free port can be taken by another test between choosing
            // it and the server binding it: then another port.
            var tries = 1
            while true {
                do {
                    try server.startServer()
                    break
                } catch where tries < 5 && server.logMentions("could not bind") {
                    tries += 1
                    server = PostgresTestServer(port: try freePort(), dataDirectory: base, binaries: binaries, options: options)
                }
            }
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Whether the server's log says `text`.
    func logMentions(_ text: String) -> Bool {
        ((try? String(contentsOfFile: dataDirectory + "/server.log", encoding: .utf8)) ?? "").contains(text)
    }

    /// (Re)starts the server process on the same port and data.
    public func startServer() throws {
        var arguments = "-p \(port) -k \(dataDirectory) -c listen_addresses=127.0.0.1 -c fsync=off"
        for (name, value) in options.settings.sorted(by: { $0.key < $1.key }) {
            arguments += " -c \(name)=\(value.replacingOccurrences(of: "{dir}", with: dataDirectory))"
        }
        try Self.runAsServerUser(binaries.pgCtl, [
            "-D", dataDirectory + "/data", "-l", dataDirectory + "/server.log", "-o", arguments, "-w", "-t", "30", "start",
        ])
        running.withLock { $0 = true }
    }

    /// Stops the server process immediately (as a crash would), keeping
    /// the data: for restart tests.
    public func stopServer(mode: String = "immediate") throws {
        try Self.runAsServerUser(binaries.pgCtl, ["-D", dataDirectory + "/data", "-m", mode, "-w", "-t", "30", "stop"])
        running.withLock { $0 = false }
    }

    /// Stops the server and removes its directory. Safe to call twice.
    public func stop() {
        if running.withLock({ $0 }) { try? stopServer(mode: "immediate") }
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    /// Runs SQL with psql, when it is there (schema set-up in tests).
    public func psql(_ sql: String) throws -> String {
        let psql = binaries.directory + "/psql"
        return try Self.run(psql, ["-h", "127.0.0.1", "-p", "\(port)", "-U", Self.databaseUser, "-d", "postgres", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    // MARK: Processes

    static func ensureUser() throws {
        guard geteuid() == 0 else { return }
        if getpwnam(user) != nil { return }
        let useradd = ["/usr/sbin/useradd", "/sbin/useradd"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let useradd else { throw Failure("running as root and no useradd to create the user '\(user)' PostgreSQL needs") }
        do {
            try run(useradd, ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", user])
        } catch {
            // Another test process may have created it meanwhile.
            if getpwnam(user) == nil { throw error }
        }
    }

    public static func runAsServerUser(_ executable: String, _ arguments: [String]) throws {
        if geteuid() == 0 {
            guard let entry = getpwnam(user) else { throw Failure("no user \(user)") }
            let uid = entry.pointee.pw_uid, gid = entry.pointee.pw_gid
            _ = try run("/usr/bin/setpriv", [
                "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", executable,
            ] + arguments, environment: ["HOME": "/tmp", "PATH": "/usr/bin:/bin"])
        } else {
            _ = try run(executable, arguments)
        }
    }

    /// Runs `executable` and waits for it with `waitpid` (not Foundation's
    /// `Process`, whose exit notification can stall while the test
    /// threads are busy). Output goes to a file, not a pipe: the server
    /// pg_ctl leaves running would inherit a pipe and keep it open.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let outputPath = "/tmp/retry-policy-pg-output-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environmentStrings = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentStrings.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure("cannot run \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure("waitpid failed for \(executable): errno \(errno)") }
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = (status & 0x7f) == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw Failure("\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    /// A port nothing listens on now: bound to 0, read, closed.
    public static func freePort() throws -> Int {
        let (fd, port) = try boundSocket()
        close(fd)
        return port
    }

    /// Sockets that keep refused ports taken until the process ends.
    private static let refusedPortSockets = LockedValue<[Int32]>([])

    /// A loopback port that refuses connections for the rest of the test
    /// process: a socket is bound to it and never listens, so a connection
    /// is refused (`ECONNREFUSED`), and no other test can bind it meanwhile
    /// (a port that was bound and closed can be handed to the next server
    /// that asks for a free port).
    public static func refusedPort() throws -> Int {
        let (fd, port) = try boundSocket()
        refusedPortSockets.withLock { $0.append(fd) }
        return port
    }

    /// A TCP socket bound to a free loopback port, and the port.
    static func boundSocket() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket() failed") }
        var keep = false
        defer { if !keep { close(fd) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure("bind() failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure("getsockname() failed") }
        keep = true
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
