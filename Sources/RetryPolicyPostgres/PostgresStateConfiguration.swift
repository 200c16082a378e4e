#if Postgres  // the trait; without it this module is empty
import RetryPolicyCore

/// How a ``PostgresRetryStateStore`` reaches its database and behaves when
/// it cannot.
public struct PostgresStateConfiguration: Sendable, Hashable {
    /// What a retry does when the shared budget cannot be reached in time.
    public enum FailureMode: String, Sendable, Hashable {
        /// Spend from this process's view of the bucket (the default): the
        /// database being down never stops a retry the local state allows.
        case open
        /// Refuse the retry (`budget_exhausted`): the fleet never spends a
        /// token the database did not grant.
        case closed
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String

    /// How long a retry waits for the shared budget before falling back.
    public var withdrawTimeout: Duration = .milliseconds(250)
    /// How long connecting (and the start-up reads) may take.
    public var connectTimeout: Duration = .seconds(2)
    /// How often refunds from successes are written, summed per key.
    public var refundInterval: Duration = .milliseconds(100)
    /// The first and the longest pause between reconnection attempts.
    public var reconnectDelay: Duration = .milliseconds(50)
    public var maximumReconnectDelay: Duration = .seconds(2)
    public var failureMode: FailureMode = .open
    /// How long the half-open probe permits of a shared circuit breaker
    /// stay claimed. Once every permit is out and this has passed since
    /// the first was claimed without the probes deciding (a process died
    /// or hangs holding one), the next claim starts a new round of probes.
    public var probeLease: Duration = .seconds(60)
    /// After finding every probe permit out, how long (in the breaker's
    /// time) a process rejects further calls itself before asking the
    /// database again; a closing or an opening still arrives at once by
    /// notification.
    public var probeClaimInterval: Duration = .milliseconds(100)
    /// TLS to the server (`sslmode` and its files in the URL); off by default.
    public var tls: TLS = .disabled
    /// After each connection the store sends itself a `NOTIFY`; if it has
    /// not arrived within this, notifications do not reach this connection
    /// (a pooler in transaction or statement mode, such as PgBouncer, drops
    /// them) and the store polls instead.
    public var notificationProbeTimeout: Duration = .seconds(5)
    /// How often cooldowns and breaker rows are re-read when notifications
    /// do not arrive.
    public var pollInterval: Duration = .seconds(1)

    public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// Reads `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (also
    /// `postgresql://`), percent-decoded as libpq does. Query parameters:
    /// `password=...` (instead of one in the user information),
    /// `fail=open|closed`, `timeout_ms=N` (the withdraw timeout),
    /// `connect_timeout=SECONDS`, and TLS as libpq spells it (``TLS``):
    /// `sslmode=disable|prefer|require|verify-ca|verify-full`,
    /// `sslrootcert=PATH|system`, `sslcert=PATH`, `sslkey=PATH`. An error
    /// names the URL without its password.
    public init(url text: String) throws(PostgresStateError) {
        let shown = PostgresURL.redacted(text)
        let expected = "expected postgres://USER@HOST:PORT/DB"
        let url: PostgresURL
        do throws(PostgresURL.Problem) {
            url = try PostgresURL(text)
        } catch {
            switch error {
            case .notAURL: throw .invalidURL(shown, "not a URL; \(expected)")
            case .scheme(let scheme):
                throw .invalidURL(shown, "the scheme must be postgres:// or postgresql://, found \(DisplayText.escaped(scheme))://")
            case .hosts: throw .invalidURL(shown, "no valid host (a name, an IPv4 address or a [bracketed] IPv6 address, then :PORT); \(expected)")
            case .unexpected(let character): throw .invalidURL(shown, "unexpected '\(character)'; percent-encode it (a '#' in a password is %23)")
            }
        }
        guard url.hosts.count == 1, let (host, portText) = url.hosts.first, !host.isEmpty else {
            throw .invalidURL(shown, url.hosts.count > 1 ? "several hosts are not supported; give one" : "no host; \(expected)")
        }
        guard !url.user.isEmpty else { throw .invalidURL(shown, "no user; \(expected)") }
        guard !url.database.isEmpty, !url.database.contains("/") else {
            throw .invalidURL(shown, "no database name; \(expected)")
        }
        var port = 5432
        if let portText {
            guard portText.utf8.count <= 5, let number = Int(portText), (1...65535).contains(number) else {
                throw .invalidURL(shown, "port \(DisplayText.escaped(String(portText.prefix(20)))) is out of range (1 to 65535)")
            }
            port = number
        }
        self.init(host: host, port: port, username: url.user, password: url.password, database: url.database)
        // A query holding an '@' may hold the rest of a password whose raw
        // '/', '?' or '#' ended the authority early (`fleet:X@X/X?X@db/x` is
        // read with the host `X`): nothing of such a query is quoted.
        let quotesQuery = !url.parameters.contains { $0.0.contains("@") || $0.1.contains("@") }
        var tlsParameters: [String: String] = [:]
        var seen: Set<String> = []
        var afterPassword = false
        for (name, value) in url.parameters {
            defer { afterPassword = PostgresURL.isPassword(parameter: name) || (afterPassword && !PostgresURL.isParameterName(name)) }
            if afterPassword && !PostgresURL.isParameterName(name) {
                // Not named: it may well be the rest of the password.
                throw .invalidURL(shown, "the password= parameter is followed by an unknown one; a '&' in a password is written %26")
            }
            // A name is quoted only when it cannot be a piece of a password:
            // a parameter's spelling, in a query without an '@'.
            let quotedName = quotesQuery && PostgresURL.isParameterSpelling(name)
                ? "'" + name + "'" : "(a name that is no parameter's; a '?', '#' or '&' in a password is written %3F, %23 or %26)"
            guard seen.insert(name).inserted else { throw .invalidURL(shown, "parameter \(quotedName) is given twice") }
            switch name {
            case "sslmode", "sslrootcert", "sslcert", "sslkey":
                tlsParameters[name] = value
            case "password":
                guard password == nil else { throw .invalidURL(shown, "the password is given twice (before the host and as password=)") }
                password = value
            case "fail":
                guard let mode = FailureMode(rawValue: value) else {
                    let found = quotesQuery && PostgresURL.isParameterSpelling(value) ? ", found '\(value)'" : ""
                    throw .invalidURL(shown, "fail must be open or closed" + found)
                }
                failureMode = mode
            case "timeout_ms":
                guard value.utf8.count <= 9, let milliseconds = Int(value), milliseconds > 0 else {
                    throw .invalidURL(shown, "timeout_ms must be a positive number of milliseconds (at most 999999999)")
                }
                withdrawTimeout = .milliseconds(milliseconds)
            case "connect_timeout":
                guard value.utf8.count <= 9, let seconds = Int(value), seconds > 0 else {
                    throw .invalidURL(shown, "connect_timeout must be a positive number of seconds (at most 999999999)")
                }
                connectTimeout = .seconds(seconds)
            default:
                throw .invalidURL(
                    shown,
                    "unknown parameter \(quotedName); known: \(PostgresURL.knownParameters.joined(separator: ", "))")
            }
        }
        tls = try TLS(parameters: tlsParameters, url: shown)
    }

    /// The URL without the password, for messages.
    public var redactedURL: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return DisplayText.escaped("postgres://\(username)@\(shownHost):\(port)/\(database)")
    }
}

/// Why a ``PostgresRetryStateStore`` could not start.
public enum PostgresStateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL (without its password) and what is wrong with it.
    case invalidURL(String, String)
    /// The server could not be reached or refused the connection.
    case connectionFailed(String, String)
    /// The tables are not there (and the store was not asked to create them).
    case schemaMissing(String)
    /// The tables were made by a newer version of this package.
    case schemaTooNew(found: Int, supported: Int)
    /// Any other failure of a start-up statement.
    case queryFailed(String)
    /// A TLS setting or certificate problem: the mode (`sslmode=verify-full`)
    /// and what failed.
    case tlsFailed(mode: String, String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid state URL '\(url)': \(reason)"
        case .connectionFailed(let url, let reason): "cannot connect to \(url): \(reason)"
        case .schemaMissing(let table):
            "the shared-state table \(table) does not exist; create the schema first (retry-policy request --init-state, or PostgresRetryStateStore.createSchema())"
        case .schemaTooNew(let found, let supported):
            "the shared-state schema is version \(found); this version of retry-policy supports up to \(supported)"
        case .queryFailed(let reason): "shared-state query failed: \(reason)"
        case .tlsFailed(let mode, let reason): "TLS to the shared-state database (\(mode)): \(reason)"
        }
    }
}
#endif
