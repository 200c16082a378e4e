#if Postgres  // the trait; these tests need PostgresNIO
import PropertyBased
import RetryPolicyPostgres
import Testing

/// A state URL holds a password; no error names it, whatever is wrong with
/// the URL and however the password is written.
@Suite("State URLs: read as libpq does, shown without the password")
struct StateURLRedactionTests {
    /// Passwords as a URL can carry them: plain, percent-encoded, and with
    /// each delimiter raw.
    static let passwords = ["s3cr3tPW", "s3cr3t%2FPW%3F%23%40", "s3cr3t/PW", "s3cr3t?PW", "s3cr3t#PW", "s3cr3t@PW", "s3cr3t?a=b&c/d#e@f"]

    @Test("A password with a raw or percent-encoded delimiter is read whole, and the host is still the host", arguments: passwords)
    func delimitersInPasswords(password: String) throws {
        let configuration = try PostgresStateConfiguration(url: "postgres://fleet:\(password)@db.internal:6543/retries?fail=closed")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "fleet")
        #expect(configuration.password == password.removingPercentEncodingForTest)
        #expect(configuration.database == "retries")
        #expect(configuration.failureMode == .closed)
        #expect(configuration.redactedURL == "postgres://fleet@db.internal:6543/retries")
    }

    @Test("password= as a query parameter is read, and refused when the URL has a password already")
    func passwordParameter() throws {
        let configuration = try PostgresStateConfiguration(url: "postgres://fleet@db.internal/retries?password=s3cr3t%26PW")
        #expect(configuration.password == "s3cr3t&PW")
        do {
            _ = try PostgresStateConfiguration(url: "postgres://fleet:s3cr3tA@db.internal/retries?password=s3cr3tB")
            Issue.record("two passwords accepted")
        } catch {
            #expect(error.description.contains("the password is given twice"))
            #expect(!error.description.contains("s3cr3t"), "\(error)")
        }
    }

    /// URLs that are refused, each with a password somewhere; `{}` is
    /// where the password goes.
    static let refusedURLs = [
        "postgres://fleet:{}@db.internal:6543/retries?application_name=worker",
        "postgresql://fleet:{}@db.internal/retries?sslmode=allow",
        "postgres://fleet:{}@db.internal/retries?fail=sometimes",
        "postgres://fleet:{}@db.internal:99999/retries",
        "postgres://fleet:{}@db.internal/",
        "postgres://fleet:{}@db-a.internal:5432,db-b.internal:5432/retries",
        "postgres://fleet:{}@/retries",
        "postgres://fleet:{}@db.internal/retries#fragment",
        "postgres://fleet:{}@db.internal/retries?sslmode=verify-full",
        "postgres://fleet:{}@db.internal/retries?sslmode=require&sslmode=disable",
        "postgres://fleet@db.internal/retries?password={}&application_name=worker",
        "postgres://fleet@db.internal/retries?PASSWORD={}",
        "postgres://fleet@db.internal/retries?pass%77ord={}&x=1",
        "postgres://fleet@db.internal/retries?sslpassword={}&application_name=worker",
        "postgres://fleet@db.internal/retries?fail=closed&password={}&{}=x&sslmode=require",
        "mysql://fleet:{}@db.internal/retries",
        "fleet:{}@db.internal/retries",
        "postgres:/fleet:{}@db.internal/retries",
        "postgres://fleet:{}@db\u{1B}[31m.internal/retries",
    ]

    @Test("Every refusal names the URL without the password", arguments: refusedURLs)
    func refusalsHideThePassword(template: String) {
        for password in Self.passwords {
            let url = template.replacingOccurrences(of: "{}", with: password)
            do {
                _ = try PostgresStateConfiguration(url: url)
                Issue.record("accepted \(url)")
            } catch {
                let message = error.description
                #expect(!message.contains("s3cr3t"), "\(message)")
                #expect(message.hasPrefix("invalid state URL") || message.contains("TLS to the shared-state database"), "\(message)")
                #expect(!message.contains("\u{1B}"), "\(message)")
            }
        }
    }

    @Test("The unknown parameter is named, with the parameters known, and the host kept")
    func unknownParameter() {
        do {
            _ = try PostgresStateConfiguration(url: "postgres://fleet:s3cr3t/PW@db.internal:6543/retries?application_name=worker")
            Issue.record("accepted")
        } catch {
            #expect(
                error.description
                    == "invalid state URL 'postgres://fleet@db.internal:6543/retries?application_name=worker': unknown parameter 'application_name'; known: password, fail, timeout_ms, connect_timeout, sslmode, sslrootcert, sslcert, sslkey")
        }
    }

    /// What random passwords are made of: the marker `X` (found nowhere
    /// else in the URLs below) and delimiters, raw and percent-encoded.
    static let pieces = ["X", "/", "?", "#", "@", ":", "&", "=", "%2F", "%40", "%", "Xy"]

    /// Whether a raw `@` comes before a raw `/`, `?` or `#`: such a URL is
    /// valid for RFC 3986 and libpq with another host (`fleet:X@X?X@db` has
    /// the host `X`), so only its errors are checked.
    static func isAmbiguous(_ password: String) -> Bool {
        guard let delimiter = password.lastIndex(where: { "/?#".contains($0) }) else { return false }
        return password[..<delimiter].contains("@")
    }

    @Test("A password whose raw '@' and '/' make another host, and whose rest lands in the query, is not quoted as a parameter's name")
    func passwordReadIntoTheQuery() {
        // Found by the property test below: `fleet:X@X/X?X@db...` has the
        // host `X`, and `X@db.internal:6543/retries?application_name` was
        // quoted as an unknown parameter.
        for url in [
            "postgres://fleet:X@X/X?X@db.internal:6543/retries?application_name=worker",
            "postgres://fleet:X@X/X?X@db.internal:6543,db-b.internal/retries",
            "postgres://fleet:a@b/c?secretpart=1@db.internal/retries",
            "postgres://fleet:a@b/c?fail=secretpart@db.internal/retries",
        ] {
            do {
                _ = try PostgresStateConfiguration(url: url)
                Issue.record("accepted \(url)")
            } catch {
                #expect(!"\(error)".contains("X") && !"\(error)".contains("secretpart"), "\(url): \(error)")
            }
        }
    }

    @Test("Any password of delimiters: never in an error; read whole, the host still the host, unless a raw @ precedes a delimiter")
    func anyPassword() async {
        await propertyCheck(count: 500, input: Gen.int(in: 0...(Self.pieces.count - 1)).map { Self.pieces[$0] }.array(of: 0...12)) { parts in
            let password = "X" + parts.joined()
            for url in [
                "postgres://fleet:\(password)@db.internal:6543/retries?application_name=worker",
                "postgres://fleet@db.internal:6543/retries?application_name=worker&password=\(password)",
                "postgres://fleet:\(password)@db.internal:6543,db-b.internal/retries",
            ] {
                do {
                    _ = try PostgresStateConfiguration(url: url)
                    Issue.record("accepted \(url)")
                } catch {
                    #expect(!"\(error)".contains("X"), "\(url): \(error)")
                }
            }
            if !Self.isAmbiguous(password) {
                let configuration = try? PostgresStateConfiguration(url: "postgres://fleet:\(password)@db.internal:6543/retries?fail=closed")
                #expect(configuration?.host == "db.internal", "\(password)")
                #expect(configuration?.port == 6543)
                #expect(configuration?.password == password.removingPercentEncodingForTest, "\(password)")
                #expect(configuration?.database == "retries")
            }
        }
    }

    @Test("IPv6 hosts are read without brackets and shown with them")
    func ipv6() throws {
        let configuration = try PostgresStateConfiguration(url: "postgres://fleet:pw@[::1]:6543/retries")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 6543)
        #expect(configuration.redactedURL == "postgres://fleet@[::1]:6543/retries")
    }
}

extension String {
    /// `%XX` decoded, for the expectations (the reader has its own).
    var removingPercentEncodingForTest: String {
        var bytes: [UInt8] = []
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let end = utf8.index(index, offsetBy: 3, limitedBy: utf8.endIndex),
                let value = UInt8(String(decoding: utf8[utf8.index(after: index)..<end], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = end
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
