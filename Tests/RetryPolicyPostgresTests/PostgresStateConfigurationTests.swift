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
            "postgres://fleet@localhost:5432/", "postgres://fleet@localhost:5432/db?sslmode=require",
            "postgres://fleet@localhost/db?fail=sometimes", "postgres://fleet@localhost/db?colour=blue",
        ])
    func refused(url: String) {
        #expect(throws: PostgresStateError.self) { try PostgresStateConfiguration(url: url) }
    }
}
#endif
