/// A URL split where its credentials end: the scheme, the user
/// information (user and password), the hosts, and the rest (path, query,
/// fragment). What a message or a trace needs to show a URL without its
/// password, and what the PostgreSQL URL reader builds on; read without
/// Foundation.
///
/// RFC 3986 ends the authority at the first `/`, `?` or `#` and the user
/// information at the last `@` within it. A password with a raw `/`, `?`,
/// `#` or `@` breaks that reading (`postgres://app:pa/ss@db/x` would have
/// the host `app` and the port `pa`): when the RFC reading gives no valid
/// host list, the user information ends instead at the last `@` after
/// which a valid host list follows (and, with `pathMayHoldAt` false, a
/// path without `@`); failing that, at the last `@`. The last, so that no
/// part of a password is ever shown as a host, a path or a query: an
/// ambiguous URL loses more than its password, never less.
package struct URLAuthority: Hashable, Sendable {
    package var scheme: Substring
    /// User and password as written (percent-encoded), without the `@`;
    /// `nil` when the URL has none.
    package var userinfo: Substring?
    /// `host[:port]`, or several separated by commas (libpq), as written.
    package var hostList: Substring
    /// The path, query and fragment: from the first `/`, `?` or `#` after
    /// the hosts.
    package var rest: Substring

    /// `nil` when `text` is not `scheme://...`. With
    /// `hidingAmbiguousCredentials` (a URL shown in a message), an `@`
    /// anywhere after the RFC authority also sends the reading to the
    /// search for the last `@`: `postgres://u:p@h?x@db/x` is then shown as
    /// `postgres://u@db/x`, since `h?x` may well be the rest of a password.
    package init?(_ text: String, pathMayHoldAt: Bool = true, hidingAmbiguousCredentials: Bool = false) {
        guard let separator = text.firstRange(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic,
            scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        self.scheme = scheme
        let remainder = text[separator.upperBound...]
        // RFC 3986.
        let end = Self.hostsEnd(remainder, from: remainder.startIndex)
        let authority = remainder[..<end]
        if let at = authority.lastIndex(of: "@") {
            userinfo = authority[..<at]
            hostList = authority[authority.index(after: at)...]
        } else {
            userinfo = nil
            hostList = authority
        }
        rest = remainder[end...]
        if Self.isValid(hosts: hostList, rest: rest, pathMayHoldAt: pathMayHoldAt),
            !(hidingAmbiguousCredentials && rest.contains("@"))
        {
            return
        }
        // A password with a raw delimiter: the last `@` that valid hosts
        // follow. Taking an earlier one could show the rest of the password
        // as a host, a path or a query; a later one (an `@` in the query)
        // hides more than the password, never less.
        // Each candidate looks only as far as the `@` after it (which its
        // hosts or its path would then hold), so the search is linear.
        var right: Substring.Index?
        var searchEnd = remainder.endIndex
        while let at = remainder[..<searchEnd].lastIndex(of: "@") {
            defer {
                right = at
                searchEnd = at
            }
            let hostsStart = remainder.index(after: at)
            let limit = right ?? remainder.endIndex
            guard let hostsEnd = remainder[hostsStart..<limit].firstIndex(where: Self.endsHosts) ?? (right == nil ? limit : nil),
                Self.isValid(hosts: remainder[hostsStart..<hostsEnd])
            else { continue }
            if !pathMayHoldAt, let right, !remainder[hostsEnd..<right].contains(where: { $0 == "?" || $0 == "#" }) { continue }
            userinfo = remainder[..<at]
            hostList = remainder[hostsStart..<hostsEnd]
            rest = remainder[hostsEnd...]
            return
        }
        // Nothing valid: whatever precedes the last `@` may be a password.
        if let at = remainder.lastIndex(of: "@") {
            let hostsStart = remainder.index(after: at)
            let hostsEnd = Self.hostsEnd(remainder, from: hostsStart)
            userinfo = remainder[..<at]
            hostList = remainder[hostsStart..<hostsEnd]
            rest = remainder[hostsEnd...]
        }
    }

    /// The user name, percent-decoded (empty when there is none).
    package var user: String {
        guard let userinfo else { return "" }
        return PercentEncoding.decoded(userinfo[..<(userinfo.firstIndex(of: ":") ?? userinfo.endIndex)])
    }

    /// The password, percent-decoded; `nil` when the URL has none.
    package var password: String? {
        guard let userinfo, let colon = userinfo.firstIndex(of: ":") else { return nil }
        return PercentEncoding.decoded(userinfo[userinfo.index(after: colon)...])
    }

    /// Each host (an IPv6 literal without its brackets) and its port as
    /// written (`nil` when absent); `nil` when the list is not valid.
    package var hosts: [(host: Substring, port: Substring?)]? {
        var result: [(host: Substring, port: Substring?)] = []
        for entry in hostList.split(separator: ",", omittingEmptySubsequences: false) {
            guard let parsed = Self.hostAndPort(entry) else { return nil }
            result.append(parsed)
        }
        return result
    }

    private static func endsHosts(_ character: Character) -> Bool { character == "/" || character == "?" || character == "#" }

    private static func hostsEnd(_ text: Substring, from start: Substring.Index) -> Substring.Index {
        text[start...].firstIndex(where: endsHosts) ?? text.endIndex
    }

    private static func isValid(hosts: Substring) -> Bool {
        !hosts.isEmpty && hosts.split(separator: ",", omittingEmptySubsequences: false).allSatisfy({ hostAndPort($0) != nil })
    }

    private static func isValid(hosts: Substring, rest: Substring, pathMayHoldAt: Bool) -> Bool {
        guard isValid(hosts: hosts) else { return false }
        if pathMayHoldAt { return true }
        let path = rest[..<(rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
        return !path.contains("@")
    }

    /// `host[:port]` or `[v6]` or `[v6]:port`; the port, when present, is
    /// one or more digits.
    private static func hostAndPort(_ entry: Substring) -> (host: Substring, port: Substring?)? {
        let host: Substring
        var port: Substring?
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            host = entry[entry.index(after: entry.startIndex)..<close]
            guard !host.isEmpty, host.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || ":.%".unicodeScalars.contains($0) || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) })
            else { return nil }
            let after = entry[entry.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = after.dropFirst()
            }
        } else {
            let colon = entry.firstIndex(of: ":")
            host = entry[..<(colon ?? entry.endIndex)]
            if let colon { port = entry[entry.index(after: colon)...] }
            guard !host.isEmpty, host.unicodeScalars.allSatisfy(isRegisteredNameScalar) else { return nil }
        }
        if let port, port.isEmpty || !port.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) { return nil }
        return (host, port)
    }

    /// A letter, digit or `-._~%` of a host name, or any non-ASCII scalar
    /// that is not a control or a space (an internationalised name).
    private static func isRegisteredNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~%".unicodeScalars.contains(scalar)
        }
        return !DisplayText.isUnsafe(scalar) && !scalar.properties.isWhitespace
    }
}
