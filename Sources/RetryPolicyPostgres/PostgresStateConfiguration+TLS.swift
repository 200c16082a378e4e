#if Postgres  // the trait; without it this module is empty
import Foundation
import PostgresNIO  // re-exports NIOSSL

extension PostgresStateConfiguration {
    /// TLS as libpq spells it: `sslmode`, `sslrootcert`, `sslcert`, `sslkey`.
    ///
    /// | mode | encrypted | server certificate checked |
    /// |---|---|---|
    /// | `disable` | never | no |
    /// | `prefer` | when the server offers TLS | only against `sslrootcert`, when given (chain, not the host name) |
    /// | `require` | always | only against `sslrootcert`, when given (chain, not the host name) |
    /// | `verify-ca` | always | chain, against `sslrootcert` |
    /// | `verify-full` | always | chain and host name, against `sslrootcert` |
    ///
    /// Unlike libpq, nothing is read from `~/.postgresql`: the two verifying
    /// modes need `sslrootcert` (a PEM file, or `system` for the system's
    /// trust store).
    public struct TLS: Sendable, Hashable {
        public enum Mode: String, Sendable, Hashable, CaseIterable {
            case disable
            case prefer
            case require
            case verifyCA = "verify-ca"
            case verifyFull = "verify-full"
        }

        /// The certificate authorities a server certificate is checked against.
        public enum RootCertificates: Sendable, Hashable {
            /// A PEM file of one or more certificates.
            case file(String)
            /// The operating system's trust store (`sslrootcert=system`).
            case system
        }

        public var mode: Mode
        public var rootCertificates: RootCertificates?
        /// A client certificate (PEM, the chain from the leaf) and its key
        /// (PEM, unencrypted), for servers that authenticate clients by
        /// certificate (`pg_hba.conf` method `cert`, or `clientcert=`).
        public var certificateFile: String?
        public var keyFile: String?

        public init(
            mode: Mode, rootCertificates: RootCertificates? = nil, certificateFile: String? = nil, keyFile: String? = nil
        ) {
            self.mode = mode
            self.rootCertificates = rootCertificates
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }

        public static let disabled = TLS(mode: .disable)

        /// Whether the server's certificate chain is checked.
        var verifiesChain: Bool {
            switch mode {
            case .disable: false
            case .prefer, .require: rootCertificates != nil
            case .verifyCA, .verifyFull: true
            }
        }

        /// What a description of a failure starts with: `sslmode=verify-full`.
        var label: String { "sslmode=\(mode.rawValue)" }

        /// Checks the combination and that every named file can be read; the
        /// error names the mode and what was expected.
        func validate() throws(PostgresStateError) {
            if mode == .disable {
                if rootCertificates != nil || certificateFile != nil || keyFile != nil {
                    throw .tlsFailed(mode: label, "sslrootcert, sslcert and sslkey need a mode that uses TLS (prefer, require, verify-ca or verify-full)")
                }
                return
            }
            if (mode == .verifyCA || mode == .verifyFull) && rootCertificates == nil {
                throw .tlsFailed(mode: label, "needs sslrootcert=PATH (a PEM file of the certificate authorities to trust) or sslrootcert=system")
            }
            switch (certificateFile, keyFile) {
            case (nil, nil), (.some, .some): break
            case (.some, nil): throw .tlsFailed(mode: label, "sslcert is given without sslkey (the client certificate's private key)")
            case (nil, .some): throw .tlsFailed(mode: label, "sslkey is given without sslcert (the client certificate)")
            }
            if case .file(let path) = rootCertificates { try Self.checkReadable(path, as: "sslrootcert", mode: label) }
            if let certificateFile { try Self.checkReadable(certificateFile, as: "sslcert", mode: label) }
            if let keyFile { try Self.checkReadable(keyFile, as: "sslkey", mode: label) }
        }

        private static func checkReadable(_ path: String, as name: String, mode: String) throws(PostgresStateError) {
            guard FileManager.default.isReadableFile(atPath: path) else {
                let problem = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
                throw .tlsFailed(mode: mode, "\(name) file \(path) \(problem)")
            }
        }

        /// The driver's TLS setting, certificates loaded.
        func connectionTLS() throws(PostgresStateError) -> PostgresConnection.Configuration.TLS {
            try validate()
            if mode == .disable { return .disable }
            var tls = TLSConfiguration.makeClientConfiguration()
            switch mode {
            case .disable: break
            case .prefer, .require: tls.certificateVerification = verifiesChain ? .noHostnameVerification : .none
            case .verifyCA: tls.certificateVerification = .noHostnameVerification
            case .verifyFull: tls.certificateVerification = .fullVerification
            }
            switch rootCertificates {
            case .file(let path):
                do {
                    let certificates = try NIOSSLCertificate.fromPEMFile(path)
                    if certificates.isEmpty { throw PostgresStateError.tlsFailed(mode: label, "sslrootcert file \(path) holds no PEM certificate") }
                    tls.trustRoots = .certificates(certificates)
                } catch let error as PostgresStateError {
                    throw error
                } catch {
                    throw .tlsFailed(mode: label, "sslrootcert file \(path) is not a PEM certificate: \(error)")
                }
            case .system: tls.trustRoots = .default
            case nil: break
            }
            if let certificateFile, let keyFile {
                do {
                    let chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
                    if chain.isEmpty { throw PostgresStateError.tlsFailed(mode: label, "sslcert file \(certificateFile) holds no PEM certificate") }
                    tls.certificateChain = chain.map { .certificate($0) }
                } catch let error as PostgresStateError {
                    throw error
                } catch {
                    throw .tlsFailed(mode: label, "sslcert file \(certificateFile) is not a PEM certificate: \(error)")
                }
                do {
                    tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
                } catch {
                    throw .tlsFailed(mode: label, "sslkey file \(keyFile) is not an unencrypted PEM private key: \(error)")
                }
            }
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: tls)
            } catch {
                throw .tlsFailed(mode: label, "the TLS settings were refused: \(error)")
            }
            return mode == .prefer ? .prefer(context) : .require(context)
        }

        /// Reads the `ssl*` parameters of a connection URL.
        init(parameters: [String: String], url: String) throws(PostgresStateError) {
            let modeText = parameters["sslmode"] ?? Mode.disable.rawValue
            guard let mode = Mode(rawValue: modeText) else {
                let modes = Mode.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidURL(url, "sslmode must be one of \(modes); found '\(modeText)'")
            }
            var rootCertificates: RootCertificates?
            if let root = parameters["sslrootcert"] {
                guard !root.isEmpty else { throw .invalidURL(url, "sslrootcert must name a PEM file or be 'system'") }
                rootCertificates = root == "system" ? .system : .file(root)
            }
            for name in ["sslcert", "sslkey"] where parameters[name]?.isEmpty == true {
                throw .invalidURL(url, "\(name) must name a PEM file")
            }
            self.init(
                mode: mode, rootCertificates: rootCertificates, certificateFile: parameters["sslcert"],
                keyFile: parameters["sslkey"])
            try validate()
        }
    }
}
#endif
