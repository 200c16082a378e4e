import PropertyBased
import RetryPolicyExecutor
import Testing

/// `url.full`, `server.address` and `server.port` of a traced request:
/// never a credential, whatever the spelling, and the host still read as
/// the host when a password holds a delimiter.
@Suite("Tracing: url.full without credentials")
struct TracedURLTests {
    /// Every credential key, in the spellings a URL can carry it.
    static let keys = [
        "AWSAccessKeyId", "Signature", "sig", "X-Goog-Signature", "X-Amz-Signature", "X-Amz-Credential",
        "X-Amz-Security-Token", "X-Goog-Credential", "token", "access_token", "id_token", "refresh_token", "code",
        "client_secret", "api_key", "apikey", "api-key", "key", "password", "passwd", "secret", "auth",
    ]

    /// `key` as written, upper-cased, lower-cased, and with its first
    /// character (or every character, in upper- or lower-case
    /// hexadecimal) percent-encoded.
    static func spellings(_ key: String) -> [String] {
        func encoded(_ text: Substring, uppercase: Bool = true) -> String {
            text.utf8.map { "%" + String($0, radix: 16, uppercase: uppercase) }.joined()
        }
        return [
            key, key.uppercased(), key.lowercased(), encoded(key.prefix(1)) + key.dropFirst(), encoded(key[...]),
            encoded(key.uppercased()[...], uppercase: false),
        ]
    }

    @Test("Each credential key, in every case and percent-encoding, has its value replaced", arguments: keys)
    func credentialKeys(key: String) throws {
        for spelling in Self.spellings(key) {
            let traced = try #require(TracedURL("https://api.example.com/v1/items?page=2&\(spelling)=s3cr3t-VALUE&q=x"))
            #expect(traced.full == "https://api.example.com/v1/items?page=2&\(spelling)=REDACTED&q=x", "\(spelling)")
            #expect(!traced.full.contains("s3cr3t"))
        }
    }

    @Test(
        "The table: userinfo, fragments, delimiters in passwords, IPv6, no query, empty values",
        arguments: [
            // (URL, url.full, server.address, server.port)
            ("https://user:secret@api.example.com:8443/v3/movies?page=2&sig=abc", "https://api.example.com:8443/v3/movies?page=2&sig=REDACTED", "api.example.com", 8443),
            ("https://api.example.com/a#access_token=s3cr3t", "https://api.example.com/a", "api.example.com", 443),
            ("https://api.example.com/a?x=1#frag", "https://api.example.com/a?x=1", "api.example.com", 443),
            ("https://u:pa?ss@api.example.com/a", "https://api.example.com/a", "api.example.com", 443),
            ("https://u:pa/ss@api.example.com/a", "https://api.example.com/a", "api.example.com", 443),
            ("https://u:pa#ss@api.example.com/a", "https://api.example.com/a", "api.example.com", 443),
            ("https://u:pa@ss@api.example.com/a", "https://api.example.com/a", "api.example.com", 443),
            ("https://u:p%40s%2Fs%3F@api.example.com/a", "https://api.example.com/a", "api.example.com", 443),
            ("https://u:p?a/s#s@w@api.example.com:9/a?token=t", "https://api.example.com:9/a?token=REDACTED", "api.example.com", 9),
            ("http://[2001:db8::1]:8080/p?key=k", "http://[2001:db8::1]:8080/p?key=REDACTED", "2001:db8::1", 8080),
            ("https://user:pw@[::1]/p", "https://[::1]/p", "::1", 443),
            ("https://api.example.com", "https://api.example.com", "api.example.com", 443),
            ("http://api.example.com/path/only", "http://api.example.com/path/only", "api.example.com", 80),
            ("https://api.example.com/?", "https://api.example.com/?", "api.example.com", 443),
            ("https://api.example.com/?sig=&token&=x&&", "https://api.example.com/?sig=REDACTED&token=REDACTED&=x&&", "api.example.com", 443),
            ("https://api.example.com?SIG=1", "https://api.example.com?SIG=REDACTED", "api.example.com", 443),
            ("https://api.example.com/p?redirect=me@example.org&sig=1", "https://api.example.com/p?redirect=me@example.org&sig=REDACTED", "api.example.com", 443),
            ("https://api.example.com/@scope/pkg", "https://api.example.com/@scope/pkg", "api.example.com", 443),
            ("HTTPS://API.example.com/x", "HTTPS://API.example.com/x", "API.example.com", 443),
        ])
    func table(url: String, full: String, address: String, port: Int) throws {
        let traced = try #require(TracedURL(url))
        #expect(traced.full == full)
        #expect(traced.serverAddress == address)
        #expect(traced.serverPort == port)
        for secret in ["secret", "pa?ss", "pa/ss", "pa#ss", "pa@ss", "p%40s", "s3cr3t"] {
            #expect(!traced.full.contains(secret))
        }
    }

    @Test("Any password of delimiters, raw or encoded: removed whole and the host read right, unless a raw @ precedes a delimiter (then RFC 3986's reading)")
    func anyPassword() async {
        let pieces = ["X", "/", "?", "#", "@", ":", "&", "=", "%2F", "%40", "%", "Xy"]
        await propertyCheck(count: 500, input: Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...12)) { parts in
            let password = "X" + parts.joined()
            let traced = TracedURL("https://user:\(password)@api.example.com:8443/v1/items?page=2&sig=s3cr3t#frag")
            guard let delimiter = password.lastIndex(where: { "/?#".contains($0) }), password[..<delimiter].contains("@") else {
                #expect(traced?.full == "https://api.example.com:8443/v1/items?page=2&sig=REDACTED", "\(password)")
                #expect(traced?.serverAddress == "api.example.com")
                #expect(traced?.serverPort == 8443)
                return
            }
        }
    }

    @Test("What cannot be read as an absolute URL with one valid host is recorded as no URL", arguments: [
        "api.example.com/path", "/relative?token=x", "https://", "https://:443/", "https://u:pw@/path", "mailto:a@b",
        "https://host:port/", "https://[::1/", "https://a b/",
    ])
    func unreadable(url: String) {
        #expect(TracedURL(url) == nil)
    }
}
