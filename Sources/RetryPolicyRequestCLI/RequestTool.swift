import Foundation
import RetryPolicyCommandSupport

/// `retry-policy-request`: the `request` command of `retry-policy` as an
/// executable of its own, so that the lint commands build and link without
/// NIO, AsyncHTTPClient, BoringSSL and PostgresNIO. `retry-policy request
/// ARGS...` runs `retry-policy-request ARGS...`; the exit statuses are the
/// ones `retry-policy` documents.
@main
enum RequestTool {
    static func main() async {
        let status = await CommandMain.run(RequestCommand.self)
        exit(status)
    }
}
