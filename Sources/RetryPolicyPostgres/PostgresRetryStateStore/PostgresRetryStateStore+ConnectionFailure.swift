#if Postgres  // the trait; without it this module is empty
import PostgresNIO  // re-exports NIOSSL

extension PostgresRetryStateStore {
    /// Why a connection could not be made, sorted by whether waiting can
    /// fix it: a server that is down, restarting or out of reach comes back;
    /// wrong credentials, a database that does not exist or a certificate
    /// that does not check out stay wrong until someone changes them.
    enum ConnectionFailure: Error {
        /// Worth retrying: refused, timed out, reset, the server starting.
        case transient(String)
        /// An error of configuration, as it will be reported.
        case permanent(PostgresStateError)
    }

    /// Sorts `error` from connecting into a ``ConnectionFailure``.
    func classify(connectionError error: any Error) -> ConnectionFailure {
        let tls = configuration.tls
        if let error = error as? PSQLError {
            if error.code == .sslUnsupported {
                return .permanent(.tlsFailed(mode: tls.label, "the server does not offer TLS"))
            }
            if let state = error.serverInfo?[.sqlState] {
                // 28: invalid authorisation (a password, a pg_hba.conf rule,
                // a client certificate); 3D: no such database.
                if state.hasPrefix("28") || state.hasPrefix("3D") {
                    return .permanent(.connectionFailed(configuration.redactedURL, Self.describe(error)))
                }
                return .transient(Self.describe(error))
            }
            if let underlying = error.underlying, let reason = tlsProblem(underlying) {
                return .permanent(.tlsFailed(mode: tls.label, reason))
            }
            if error.code == .failedToAddSSLHandler {
                return .permanent(.tlsFailed(mode: tls.label, "TLS could not be set up: \(Self.describe(error))"))
            }
        } else if let reason = tlsProblem(error) {
            return .permanent(.tlsFailed(mode: tls.label, reason))
        }
        return .transient(Self.describe(error))
    }

    /// What a TLS error says, in the terms of the configuration; `nil` for
    /// an error that is not about TLS.
    private func tlsProblem(_ error: any Error) -> String? {
        let tls = configuration.tls
        let roots: String
        switch tls.rootCertificates {
        case .file(let path): roots = "in \(path)"
        case .system: roots = "in the system's trust store"
        case nil: roots = "given"
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the server's certificate does not name the host \(configuration.host) (\(error))"
        }
        if let error = error as? NIOSSLError {
            let text = "\(error)"
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return "the server's certificate was not issued by a certificate authority \(roots) (\(text))"
            }
            if text.contains("CERTIFICATE_REQUIRED") || text.contains("HANDSHAKE_FAILURE") || text.contains("UNKNOWN_CA")
                || text.contains("BAD_CERTIFICATE")
            {
                return "the server refused the handshake; it may require a client certificate (sslcert, sslkey) it trusts (\(text))"
            }
            return "the TLS handshake failed (\(text))"
        }
        if error is NIOSSLExtraError { return "the TLS handshake failed (\(error))" }
        return nil
    }
}
#endif
