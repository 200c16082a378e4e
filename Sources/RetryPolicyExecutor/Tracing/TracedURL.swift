import RetryPolicyCore

/// What a trace may say of a request's URL: `url.full` without the user
/// name and password, without the fragment, and with the values of
/// credential-bearing query parameters replaced by `REDACTED`, as
/// OpenTelemetry's HTTP conventions ask; `server.address` and
/// `server.port` taken from its authority.
///
/// The authority is read as ``URLAuthority`` does: a password holding a
/// raw `/`, `?`, `#` or `@` is removed whole, and the host after it is
/// still the server address. A URL whose hosts cannot be read is recorded
/// as no URL rather than risk recording a credential.
package struct TracedURL: Hashable, Sendable {
    package var full: String
    package var serverAddress: String
    package var serverPort: Int?

    /// Query parameters whose values are credentials, lower-cased: matched
    /// against each key percent-decoded and lower-cased, so that no
    /// spelling (`X-AMZ-SIGNATURE`, `x%2Damz%2Dsignature`) slips through.
    /// OpenTelemetry's list (`AWSAccessKeyId`, `Signature`, `sig`,
    /// `X-Goog-Signature`); the rest of the credentials of signed URLs
    /// (AWS SigV4 `X-Amz-Signature`, `X-Amz-Credential`,
    /// `X-Amz-Security-Token`; Google Cloud Storage `X-Goog-Credential`;
    /// Azure SAS `sig`, the only part of a SAS that grants anything); and
    /// the usual names of bearer credentials and secrets passed in a query
    /// (OAuth's `access_token`, `id_token`, `refresh_token`,
    /// `client_secret` and authorization `code`, API keys, passwords).
    package static let redactedQueryKeys: Set<String> = [
        "awsaccesskeyid", "signature", "sig", "x-goog-signature",
        "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-goog-credential",
        "token", "access_token", "id_token", "refresh_token", "code", "client_secret",
        "api_key", "apikey", "api-key", "key", "password", "passwd", "secret", "auth",
    ]

    package init?(_ text: String) {
        guard let url = URLAuthority(text), let hosts = url.hosts, hosts.count == 1 else { return nil }
        let (host, port) = hosts[0]
        serverAddress = String(host)
        serverPort = port.flatMap { $0.utf8.count <= 5 ? Int($0) : nil } ?? Self.defaultPort(url.scheme.lowercased())
        full = String(url.scheme) + "://" + String(url.hostList) + Self.redactingQuery(url.rest)
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    /// `rest` (path, query, fragment) without the fragment, and with the
    /// values of the credential parameters replaced by `REDACTED`.
    package static func redactingQuery(_ rest: Substring) -> String {
        let kept = rest[..<(rest.firstIndex(of: "#") ?? rest.endIndex)]
        guard let question = kept.firstIndex(of: "?") else { return String(kept) }
        let query = kept[kept.index(after: question)...]
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            let equals = parameter.firstIndex(of: "=") ?? parameter.endIndex
            let key = parameter[..<equals]
            guard redactedQueryKeys.contains(PercentEncoding.decoded(key).lowercased()) else { return String(parameter) }
            return String(key) + "=REDACTED"
        }
        return String(kept[...question]) + parameters.joined(separator: "&")
    }
}
