#if Postgres  // the trait; these tests need PostgresNIO
import RetryPolicyPostgres
import Testing

@Suite struct PostgresStateConfigurationTests {
    @Test("A state URL gives host, port, user, password and database")
    func parses() throws {
        let configuration = try PostgresStateConfiguration(url: "postgres://fleet:s%40cret@db.internal:6543/retries")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "fleet")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "retries")
        #expect(configuration.failureMode == .open)
        #expect(configuration.redactedURL == "postgres://fleet@db.internal:6543/retries")
    }

    @Test("The port defaults to 5432; parameters set the failure mode and the timeout")
    func parameters() throws {
        let configuration = try PostgresStateConfiguration(url: "postgresql://fleet@localhost/db?fail=closed&timeout_ms=40&sslmode=disable")
        #expect(configuration.port == 5432)
        #expect(configuration.failureMode == .closed)
        #expect(configuration.withdrawTimeout == .milliseconds(40))
    }

    @Test(
        "Bad state URLs are refused with a reason",
        arguments: [
            "localhost:5432/db", "http://fleet@localhost/db", "postgres://localhost:5432/db", "postgres://fleet@:5432/db",
            "postgres://fleet@localhost:5432/", "postgres://fleet@localhost/db?sslmode=allow",
            "postgres://fleet@localhost/db?fail=sometimes", "postgres://fleet@localhost/db?colour=blue",
        ])
    func refused(url: String) {
        #expect(throws: PostgresStateError.self) { try PostgresStateConfiguration(url: url) }
    }

    @Test("sslmode takes libpq's five modes; require and prefer verify only when given sslrootcert")
    func sslModes() throws {
        #expect(try PostgresStateConfiguration(url: "postgres://fleet@db/x").tls == .disabled)
        let file = #filePath  // any readable file stands for a certificate here
        for mode in PostgresStateConfiguration.TLS.Mode.allCases where mode != .disable {
            let tls = try PostgresStateConfiguration(url: "postgres://fleet@db/x?sslmode=\(mode.rawValue)&sslrootcert=\(file)").tls
            #expect(tls == .init(mode: mode, rootCertificates: .file(file)))
        }
        let system = try PostgresStateConfiguration(url: "postgres://fleet@db/x?sslmode=verify-full&sslrootcert=system").tls
        #expect(system.rootCertificates == .system)
        let client = try PostgresStateConfiguration(url: "postgres://fleet@db/x?sslmode=require&sslcert=\(file)&sslkey=\(file)").tls
        #expect(client == .init(mode: .require, certificateFile: file, keyFile: file))
    }

    @Test(
        "A TLS setting that cannot work is refused with the mode and what was expected",
        arguments: [
            ("sslmode=verify", "sslmode must be one of disable, prefer, require, verify-ca, verify-full; found 'verify'"),
            ("sslmode=verify-full", "sslmode=verify-full): needs sslrootcert=PATH"),
            ("sslmode=verify-ca", "sslmode=verify-ca): needs sslrootcert=PATH"),
            ("sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem", "sslrootcert file /nonexistent/ca.pem does not exist"),
            ("sslmode=require&sslcert=/nonexistent/client.pem&sslkey=/nonexistent/client.key", "sslcert file /nonexistent/client.pem does not exist"),
            ("sslmode=require&sslcert=\(#filePath)", "sslcert is given without sslkey"),
            ("sslmode=require&sslkey=\(#filePath)", "sslkey is given without sslcert"),
            ("sslrootcert=\(#filePath)", "sslmode=disable): sslrootcert, sslcert and sslkey need a mode that uses TLS"),
            ("sslmode=require&sslmode=disable", "parameter 'sslmode' is given twice"),
        ])
    func badTLS(parameters: String, message: String) {
        do {
            _ = try PostgresStateConfiguration(url: "postgres://fleet@db/x?\(parameters)")
            Issue.record("accepted \(parameters)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test("A file that is not a PEM certificate or key fails when the store loads it, naming the file")
    func notPEM() async throws {
        let file = #filePath
        for (parameters, message) in [
            ("sslmode=verify-full&sslrootcert=\(file)", "sslrootcert file \(file)"),
            ("sslmode=require&sslcert=\(file)&sslkey=\(file)", "sslcert file \(file)"),
        ] {
            let store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: "postgres://fleet@127.0.0.1:1/x?\(parameters)"))
            do {
                try await store.start()
                Issue.record("started with \(parameters)")
            } catch {
                guard case .tlsFailed = error else {
                    Issue.record("\(parameters): \(error)")
                    continue
                }
                #expect(error.description.contains(message), "\(error)")
            }
        }
    }
}
#endif
