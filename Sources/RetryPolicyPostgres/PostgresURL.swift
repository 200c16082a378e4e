#if Postgres  // the trait; without it this module is empty
import RetryPolicyCore

/// A PostgreSQL connection URL as libpq spells it,
/// `postgres[ql]://[user[:password]@][host][:port][,...][/dbname][?param=value&...]`,
/// percent-decoded, and the one way to show such a URL: every message and
/// log line of the shared-state configuration and of
/// `retry-policy request --state` names the URL through ``redacted(_:)``.
package struct PostgresURL {
    var user: String
    var password: String?
    /// Each host (an IPv6 literal without brackets) and its port as written.
    var hosts: [(host: String, port: Substring?)]
    /// The database name, percent-decoded (empty when the URL has none).
    var database: String
    /// The query parameters in order, names and values percent-decoded.
    var parameters: [(name: String, value: String)]

    /// The query parameters that hold a secret: libpq's `password`,
    /// `sslpassword` (the client key's passphrase) and the SCRAM keys.
    static func isPassword(parameter name: String) -> Bool {
        ["password", "sslpassword", "scram_client_key", "scram_server_key"].contains(name.lowercased())
    }

    /// The query parameters ``PostgresStateConfiguration`` reads.
    static let knownParameters = ["password", "fail", "timeout_ms", "connect_timeout", "sslmode", "sslrootcert", "sslcert", "sslkey"]

    /// libpq's connection parameters: after a password, one of these
    /// starts a parameter of its own; any other name is taken for the rest
    /// of a password holding a raw `&`.
    static let libpqParameters: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "require_auth", "channel_binding",
        "connect_timeout", "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode",
        "sslmode", "sslnegotiation", "sslcompression", "sslcert", "sslkey", "sslkeylogfile", "sslcertmode", "sslpassword",
        "sslrootcert", "sslcrl", "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version",
        "ssl_max_protocol_version", "min_protocol_version", "max_protocol_version", "krbsrvname", "gsslib",
        "gssdelegation", "scram_client_key", "scram_server_key", "service", "target_session_attrs", "load_balance_hosts",
        "requiressl", "fail", "timeout_ms",
    ]

    /// Whether `text` could be a libpq parameter's name or a word value
    /// (`closed`): 1 to 63 lower-case letters, digits and underscores.
    /// Errors quote only such text from a query, which no password piece
    /// holding a delimiter or an upper-case letter can pass for.
    package static func isParameterSpelling(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 63
            && text.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    /// Whether `name` is a parameter of its own even right after a password.
    static func isParameterName(_ name: String) -> Bool { libpqParameters.contains(name) }

    /// `text` with the password removed, wherever it is: the user
    /// information keeps its user name only, a `password` query parameter
    /// is left out, and anything after a `#` is dropped. A password with a
    /// raw `/`, `?`, `#` or `@` can make a URL read two ways (as RFC 3986
    /// and libpq read it, and with the credentials running to the last `@`
    /// that valid hosts follow, ``URLAuthority``): whatever either reading
    /// takes for a password is removed, so an ambiguous URL loses more than
    /// its password, never less. Text that is not `scheme://...` keeps
    /// only what follows its last `@`. Escaped for printing
    /// (``DisplayText``).
    package static func redacted(_ text: String) -> String {
        var hidden: [Range<String.Index>] = []
        let readings = [
            URLAuthority(text, pathMayHoldAt: false),
            URLAuthority(text, pathMayHoldAt: false, hidingAmbiguousCredentials: true),
        ].compactMap { $0 }
        for url in readings {
            if let userinfo = url.userinfo, let colon = userinfo.firstIndex(of: ":") {
                hidden.append(colon..<userinfo.endIndex)
            }
            hidden += passwordRanges(in: url.rest)
        }
        var prefix = ""
        var start = text.startIndex
        if readings.isEmpty {
            if let at = text.lastIndex(of: "@") {
                prefix = "..."
                start = at
            }
            hidden += passwordRanges(in: text[start...])
        }
        var shown = prefix
        var position = start
        for range in hidden.sorted(by: { $0.lowerBound < $1.lowerBound }) where range.upperBound > position {
            if range.lowerBound > position { shown += text[position..<range.lowerBound] }
            position = range.upperBound
        }
        if position < text.endIndex { shown += text[position...] }
        return DisplayText.escaped(shown)
    }

    /// In `rest` (path, query, fragment): each `password` parameter with
    /// the `&` that joins it to the others, and everything from a `#` on.
    /// A raw `&` in a password ends the parameter, as in any query: the
    /// unknown parameters that follow a password are taken for the rest
    /// of it and removed too.
    private static func passwordRanges(in rest: Substring) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        let fragment = rest.firstIndex(of: "#") ?? rest.endIndex
        if fragment < rest.endIndex { ranges.append(fragment..<rest.endIndex) }
        guard let question = rest[..<fragment].firstIndex(of: "?") else { return ranges }
        let query = rest[rest.index(after: question)..<fragment]
        var afterPassword = false
        for parameter in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = PercentEncoding.decoded(parameter[..<(parameter.firstIndex(of: "=") ?? parameter.endIndex)])
            if isPassword(parameter: name) {
                afterPassword = true
            } else if !afterPassword || isParameterName(name) {
                afterPassword = false
                continue
            }
            if parameter.startIndex > query.startIndex {
                ranges.append(rest.index(before: parameter.startIndex)..<parameter.endIndex)
            } else {
                ranges.append(parameter.startIndex..<(parameter.endIndex < query.endIndex ? rest.index(after: parameter.endIndex) : parameter.endIndex))
            }
        }
        return ranges
    }

    /// Why `text` is not a PostgreSQL URL.
    enum Problem: Error {
        case notAURL
        case scheme(String)
        case hosts
        case unexpected(String)
    }

    init(_ text: String) throws(Problem) {
        guard let url = URLAuthority(text, pathMayHoldAt: false) else { throw .notAURL }
        let scheme = url.scheme.lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else { throw .scheme(scheme) }
        guard let hosts = url.hosts else { throw .hosts }
        self.hosts = hosts.map { (PercentEncoding.decoded($0.host), $0.port) }
        user = url.user
        password = url.password
        let rest = url.rest
        if rest.contains("#") { throw .unexpected("#") }
        let question = rest.firstIndex(of: "?") ?? rest.endIndex
        database = PercentEncoding.decoded(rest[..<question].drop(while: { $0 == "/" }))
        parameters = []
        if question < rest.endIndex {
            for parameter in rest[rest.index(after: question)...].split(separator: "&") {
                let equals = parameter.firstIndex(of: "=") ?? parameter.endIndex
                let value = equals < parameter.endIndex ? parameter[parameter.index(after: equals)...] : ""
                parameters.append((PercentEncoding.decoded(parameter[..<equals]), PercentEncoding.decoded(value)))
            }
        }
    }
}
#endif
