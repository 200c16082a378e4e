#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// Each sslmode against a server with `ssl=on`, certificates made by the
/// test: the server's names `localhost` only, so `127.0.0.1` is the
/// mismatching host name. `pg_hba.conf` refuses unencrypted connections, so
/// a store that connects at all was encrypted; the database `certdb` also
/// wants a client certificate for the user.
@Suite(
    "TLS to PostgreSQL, as libpq's sslmode spells it",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .enabled(if: TestCertificates.unavailableReason == nil, "\(TestCertificates.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct TLSConnectionTests {
    enum Expected {
        case connects
        /// `tlsFailed`, its description containing this.
        case tlsFails(String)
        /// `connectionFailed` (the server said no), containing this.
        case refused(String)
    }

    struct Case: CustomStringConvertible {
        var host: String
        var database = "tlsdb"
        var parameters: String
        var expected: Expected
        var description: String { "\(host)/\(database)?\(parameters)" }
    }

    @Test("Every sslmode against a matching and a mismatching host name, a wrong authority, and client certificates")
    func sslModes() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try PostgresTestServer.start(
            PostgresTestServer.Options(
                settings: [
                    "ssl": "on", "ssl_cert_file": "{dir}/server.pem", "ssl_key_file": "{dir}/server.key",
                    "ssl_ca_file": "{dir}/ca.pem",
                ],
                files: [certificates.serverCertificate, certificates.serverKey, certificates.authority],
                hba: [
                    "local all all trust",
                    "hostssl certdb all 127.0.0.1/32 cert",
                    "hostssl all all 127.0.0.1/32 trust",
                    "hostnossl all all 127.0.0.1/32 reject",
                ]))
        defer { server.stop() }
        _ = try server.psql("CREATE DATABASE tlsdb")
        _ = try server.psql("CREATE DATABASE certdb")
        let ca = certificates.authority, other = certificates.otherAuthority
        let client = "sslcert=\(certificates.clientCertificate)&sslkey=\(certificates.clientKey)"
        let stranger = "sslcert=\(certificates.strangerCertificate)&sslkey=\(certificates.strangerKey)"
        let cases: [Case] = [
            // Unencrypted: this server's pg_hba.conf says no.
            Case(host: "127.0.0.1", parameters: "sslmode=disable", expected: .refused("no encryption")),
            Case(host: "localhost", parameters: "sslmode=disable", expected: .refused("no encryption")),
            // Encrypted, nothing checked: any host name, any certificate.
            Case(host: "127.0.0.1", parameters: "sslmode=prefer", expected: .connects),
            Case(host: "localhost", parameters: "sslmode=prefer", expected: .connects),
            Case(host: "127.0.0.1", parameters: "sslmode=require", expected: .connects),
            Case(host: "localhost", parameters: "sslmode=require", expected: .connects),
            // libpq's rule: require with sslrootcert checks the chain.
            Case(host: "127.0.0.1", parameters: "sslmode=require&sslrootcert=\(ca)", expected: .connects),
            Case(host: "127.0.0.1", parameters: "sslmode=require&sslrootcert=\(other)", expected: .tlsFails("not issued by a certificate authority in \(other)")),
            Case(host: "127.0.0.1", parameters: "sslmode=prefer&sslrootcert=\(other)", expected: .tlsFails("not issued by a certificate authority")),
            // The chain, not the name.
            Case(host: "127.0.0.1", parameters: "sslmode=verify-ca&sslrootcert=\(ca)", expected: .connects),
            Case(host: "localhost", parameters: "sslmode=verify-ca&sslrootcert=\(ca)", expected: .connects),
            Case(host: "localhost", parameters: "sslmode=verify-ca&sslrootcert=\(other)", expected: .tlsFails("sslmode=verify-ca")),
            // The chain and the name.
            Case(host: "localhost", parameters: "sslmode=verify-full&sslrootcert=\(ca)", expected: .connects),
            Case(host: "127.0.0.1", parameters: "sslmode=verify-full&sslrootcert=\(ca)", expected: .tlsFails("does not name the host 127.0.0.1")),
            Case(host: "localhost", parameters: "sslmode=verify-full&sslrootcert=\(other)", expected: .tlsFails("not issued by a certificate authority")),
            // A client certificate for the user, one for another, none.
            Case(host: "localhost", database: "certdb", parameters: "sslmode=verify-full&sslrootcert=\(ca)&\(client)", expected: .connects),
            Case(host: "localhost", database: "certdb", parameters: "sslmode=verify-full&sslrootcert=\(ca)&\(stranger)", expected: .refused("certificate authentication failed")),
            Case(host: "localhost", database: "certdb", parameters: "sslmode=verify-full&sslrootcert=\(ca)", expected: .refused("certificate")),
        ]
        for (index, test) in cases.enumerated() {
            // Failing open (the default): a certificate problem is still an
            // error at start, as it never fixes itself.
            let url = "postgres://\(PostgresTestServer.databaseUser)@\(test.host):\(server.port)/\(test.database)?\(test.parameters)"
            let store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: url))
            do {
                try await store.start(createSchema: true)
                guard case .connects = test.expected else {
                    Issue.record("\(test): connected, expected \(test.expected)")
                    await store.shutdown()
                    continue
                }
                // A real statement over the connection: a shared withdrawal.
                let decider = await store.decider(for: fleetPolicy(), key: "tls-\(index)")
                #expect(await decider.decidePaying(DecisionInput(outcome: .status(503))).isRetry, "\(test)")
                #expect(store.statistics.sharedWithdrawals == 1 && store.statistics.fallbacks == 0, "\(test): \(store.statistics)")
                await store.shutdown()
            } catch {
                switch (test.expected, error) {
                case (.tlsFails(let text), .tlsFailed(let mode, _)):
                    #expect(error.description.contains(text), "\(test): \(error)")
                    #expect(test.parameters.contains(String(mode.dropFirst("sslmode=".count))), "\(test): \(error)")
                case (.refused(let text), .connectionFailed):
                    #expect(error.description.contains(text), "\(test): \(error)")
                default:
                    Issue.record("\(test): \(error), expected \(test.expected)")
                }
                #expect(!store.isConnected)
            }
        }
    }

    @Test("Against a server without TLS, prefer connects unencrypted and require is refused by name")
    func serverWithoutTLS() async throws {
        let database = try TestDatabase()
        let prefer = try await PostgresRetryStateStore.started(url: database.url + "?sslmode=prefer")
        #expect(prefer.isConnected)
        await prefer.shutdown()
        let require = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: database.url + "?sslmode=require"))
        await #expect(throws: PostgresStateError.tlsFailed(mode: "sslmode=require", "the server does not offer TLS")) {
            try await require.start(createSchema: true)
        }
    }
}

extension PostgresRetryStateStore {
    static func started(url: String) async throws -> PostgresRetryStateStore {
        let store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: url))
        try await store.start(createSchema: true)
        return store
    }
}
#endif
