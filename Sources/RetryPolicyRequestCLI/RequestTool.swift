import Foundation
import RetryPolicyCommandSupport

/// `retry-policy-request`: the `request` command of `retry-policy` as an
/// executable of its own, so that the lint commands build and link without
/// NIO, AsyncHTTPClient, BoringSSL and PostgresNIO. `retry-policy request
/// ARGS...` runs `retry-policy-request ARGS...`; the exit statuses are the
/// ones `retry-policy` documents.
@main
enum RequestTool {
    #if AsyncHTTPClient && Postgres
    static func main() async {
        let status = await CommandMain.run(RequestCommand.self)
        exit(status)
    }
    #else
    /// Built with the `AsyncHTTPClient` or `Postgres` trait turned off:
    /// there is no HTTP client to send with, so say how to get one.
    static func main() {
        StandardError.write(
            """
            retry-policy-request: built without the AsyncHTTPClient and Postgres traits of \
            swift-retry-policy, so it cannot send requests; build it with the default traits \
            (swift build -c release --product retry-policy-request)

            """)
        exit(ExitStatus.usage)
    }
    #endif
}
