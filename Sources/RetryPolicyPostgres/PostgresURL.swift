#if Postgres  // the trait; without it this module is empty
import RetryPolicyCore

/// A PostgreSQL connection URL as libpq spells it,
/// `postgres[ql]://[user[:password]@][host][:port][,...][/dbname][?param=value&...]`,
/// percent-decoded, and the one way to show such a URL: every message and
/// log line of the shared-state configuration and of
/// `retry-policy request --state` names the URL through ``redacted(_:)``.
struct PostgresURL {
    var user: String
    var password: String?
    /// Each host (an IPv6 literal without brackets) and its port as written.
    var hosts: [(host: String, port: Substring?)]
    /// The database name, percent-decoded (empty when the URL has none).
    var database: String
    /// The query parameters in order, names and values percent-decoded.
    var parameters: [(name: String, value: String)]

    /// The query parameter that holds a password (libpq's `password`).
    static func isPassword(parameter name: String) -> Bool { name.lowercased() == "password" }

    /// `text` with the password removed, wherever it is: the user
    /// information keeps its user name only, a `password` query parameter
    /// is left out, and anything after a `#` is dropped. The authority is
    /// read as ``URLAuthority`` does, so a password holding a raw `/`, `?`,
    /// `#` or `@` is removed whole and the host is still shown as the host.
    /// Text that is not `scheme://...` keeps only what follows its last
    /// `@`. Escaped for printing (``DisplayText``).
    static func redacted(_ text: String) -> String {
        guard let url = URLAuthority(text, pathMayHoldAt: false) else {
            guard let at = text.lastIndex(of: "@") else { return DisplayText.escaped(withoutPasswordParameter(text[...])) }
            return DisplayText.escaped("...@" + withoutPasswordParameter(text[text.index(after: at)...]))
        }
        var shown = String(url.scheme) + "://"
        if let userinfo = url.userinfo {
            shown += userinfo[..<(userinfo.firstIndex(of: ":") ?? userinfo.endIndex)] + "@"
        }
        shown += url.hostList + withoutPasswordParameter(url.rest)
        return DisplayText.escaped(shown)
    }

    /// `rest` (path and query) without a `password` parameter and without
    /// anything after a `#`.
    private static func withoutPasswordParameter(_ rest: Substring) -> String {
        let kept = rest[..<(rest.firstIndex(of: "#") ?? rest.endIndex)]
        guard let question = kept.firstIndex(of: "?") else { return String(kept) }
        let parameters = kept[kept.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .filter { parameter in
                !isPassword(parameter: PercentEncoding.decoded(parameter[..<(parameter.firstIndex(of: "=") ?? parameter.endIndex)]))
            }
        return String(kept[...question]) + parameters.joined(separator: "&")
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
