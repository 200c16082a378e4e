#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import NIOSSL

/// A self-signed certificate for 127.0.0.1 and `localhost`, and its key,
/// for a loopback TLS server that no client trusts.
///
/// A fixture rather than generated at run time, so the tests need neither
/// swift-certificates nor an `openssl` binary. Made once with
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
/// -subj "/CN=retry-policy loopback test" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"`;
/// valid until 2126. The key is not a secret: it only ever serves
/// 127.0.0.1 inside these tests.
public enum LoopbackCertificate {
    public static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBvDCCAWOgAwIBAgIURtLCVkPcvvwVaExO3QAZegf9y00wCgYIKoZIzj0EAwIw
        JTEjMCEGA1UEAwwacmV0cnktcG9saWN5IGxvb3BiYWNrIHRlc3QwIBcNMjYxMTIy
        MDgyMjUwWhgPMjEyNjEwMjkwODIyNTBaMCUxIzAhBgNVBAMMGnJldHJ5LXBvbGlj
        eSBsb29wYmFjayB0ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAENVIrinoD
        Lhdn/wekHaAzXykXljs6fDvRMG+rChB/8XAzdMk7D8rS4OJiJH6N4t0PrT7B0NaT
        rZENp0M2VO3aHKNvMG0wHQYDVR0OBBYEFImRDhjGe6hjdiMYerPw65CzDV3MMB8G
        A1UdIwQYMBaAFImRDhjGe6hjdiMYerPw65CzDV3MMA8GA1UdEwEB/wQFMAMBAf8w
        GgYDVR0RBBMwEYcEfwAAAYIJbG9jYWxob3N0MAoGCCqGSM49BAMCA0cAMEQCIDaI
        kGUC3f9IEdexzMwcHMZHOFt7IH1bXMd2Kf0/NUTQAiBE203IGtZZEGZ7ob8y/6TX
        KfbEQKTBx5SRJcLH9JYKvA==
        -----END CERTIFICATE-----
        """

    public static let privateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgiEIF763ZQZvEqO2m
        0iPhQz4+h55R3MxMJARFyZLm//uhRANCAAQ1UiuKegMuF2f/B6QdoDNfKReWOzp8
        O9Ewb6sKEH/xcDN0yTsPytLg4mIkfo3i3Q+tPsHQ1pOtkQ2nQzZU7doc
        -----END PRIVATE KEY-----
        """

    /// A server context presenting the self-signed certificate.
    public static func serverContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        return try NIOSSLContext(
            configuration: .makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key)))
    }
}
#endif
