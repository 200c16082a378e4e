import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Certificates made for a test with the `openssl` command (P-256 keys,
/// valid for two days): a certificate authority, a server certificate it
/// signed for the DNS name `localhost` only (so `127.0.0.1` does not match
/// it), a client certificate for the database user, and a second authority
/// that signed none of them.
public struct TestCertificates: Sendable {
    public let directory: String
    public var authority: String { directory + "/ca.pem" }
    public var otherAuthority: String { directory + "/other-ca.pem" }
    public var serverCertificate: String { directory + "/server.pem" }
    public var serverKey: String { directory + "/server.key" }
    public var clientCertificate: String { directory + "/client.pem" }
    public var clientKey: String { directory + "/client.key" }
    /// The client certificate of a user the server does not know.
    public var strangerCertificate: String { directory + "/stranger.pem" }
    public var strangerKey: String { directory + "/stranger.key" }

    /// `openssl` on `PATH` or in /usr/bin.
    public static let openssl: String? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        return path.map { $0 + "/openssl" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Why certificate tests are skipped, or `nil` when they can run.
    public static let unavailableReason: String? = openssl == nil
        ? "openssl not found on PATH; install Debian's openssl package" : nil

    /// Makes the certificates in a new temporary directory.
    public static func make() throws -> TestCertificates {
        guard let openssl else { throw PostgresTestServer.Failure(unavailableReason ?? "no openssl") }
        let directory = "/tmp/retry-policy-certs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let certificates = TestCertificates(directory: directory)
        func openSSL(_ arguments: [String]) throws { try PostgresTestServer.run(openssl, arguments) }
        func authority(_ name: String, _ subject: String) throws {
            try openSSL([
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).pem", "-days", "2", "-subj", subject,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        }
        func leaf(_ name: String, subject: String, extensions: String) throws {
            try openSSL([
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).csr", "-subj", subject,
            ])
            try extensions.write(toFile: "\(directory)/\(name).ext", atomically: false, encoding: .utf8)
            try openSSL([
                "x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", certificates.authority, "-CAkey", "\(directory)/ca.key",
                "-CAcreateserial", "-out", "\(directory)/\(name).pem", "-days", "2", "-extfile", "\(directory)/\(name).ext",
            ])
        }
        try authority("ca", "/CN=retry-policy test authority")
        try authority("other-ca", "/CN=retry-policy other test authority")
        try leaf(
            "server", subject: "/CN=localhost",
            extensions: "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        try leaf(
            "client", subject: "/CN=\(PostgresTestServer.databaseUser)",
            extensions: "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        try leaf("stranger", subject: "/CN=stranger", extensions: "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
        return certificates
    }

    /// Removes the directory.
    public func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
