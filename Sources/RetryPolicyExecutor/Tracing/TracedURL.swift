/// What a trace may say of a request's URL: `url.full` without the user
/// name and password, and with the values of signing query parameters
/// replaced, as OpenTelemetry's HTTP conventions ask; `server.address` and
/// `server.port` taken from its authority.
///
/// Read without Foundation: an absolute URL is `scheme://authority/rest`,
/// which is all a trace needs; anything else is recorded as no URL.
struct TracedURL: Hashable, Sendable {
    var full: String
    var serverAddress: String
    var serverPort: Int?

    /// Query parameters whose values are credentials (OpenTelemetry's
    /// list: AWS, Azure and Google Cloud signed URLs).
    static let redactedQueryKeys: Set<String> = ["AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature"]

    init?(_ text: String) {
        guard let schemeEnd = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound]
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        let afterScheme = text[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(where: { "/?#".contains($0) }) ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Int?
        if authority.hasPrefix("[") {
            // An IPv6 literal: the port follows the closing bracket.
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = Int(authority[authority.index(after: colon)...])
        }
        guard !host.isEmpty else { return nil }
        serverAddress = String(host)
        serverPort = port ?? Self.defaultPort(scheme.lowercased())
        full = String(scheme) + "://" + String(authority) + Self.redactingQuery(afterScheme[authorityEnd...])
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        default: nil
        }
    }

    /// `rest` (path, query, fragment) with the values of the signing
    /// parameters replaced by `REDACTED`.
    static func redactingQuery(_ rest: Substring) -> String {
        guard let question = rest.firstIndex(of: "?") else { return String(rest) }
        let fragmentStart = rest[question...].firstIndex(of: "#") ?? rest.endIndex
        let query = rest[rest.index(after: question)..<fragmentStart]
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> String in
            guard let equals = parameter.firstIndex(of: "=") else { return String(parameter) }
            let key = String(parameter[parameter.startIndex..<equals])
            return redactedQueryKeys.contains(key) ? key + "=REDACTED" : String(parameter)
        }
        return String(rest[rest.startIndex...question]) + parameters.joined(separator: "&") + String(rest[fragmentStart...])
    }
}
