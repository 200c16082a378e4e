import Foundation
import RetryPolicyCommandSupport
#if AsyncHTTPClient && Postgres
import RetryPolicyPostgres
#endif

/// `retry-policy-request`: the `request` command of `retry-policy` as an
/// executable of its own, so that the lint commands build and link without
/// NIO, AsyncHTTPClient, BoringSSL and PostgresNIO. `retry-policy request
/// ARGS...` runs `retry-policy-request ARGS...`; the exit statuses are the
/// ones `retry-policy` documents.
@main
enum RequestTool {
    #if AsyncHTTPClient && Postgres
    static func main() async {
        if let message = usageErrorWithoutPasswords(Array(CommandLine.arguments.dropFirst())) {
            StandardError.write(message + "\n")
            exit(ExitStatus.usage)
        }
        let status = await CommandMain.run(RequestCommand.self)
        exit(status)
    }

    /// ArgumentParser quotes an argument it cannot place (`Unexpected
    /// argument 'postgres://app:PASSWORD@db/x'`): when such a message would
    /// show an argument holding a URL, it is returned with each such
    /// argument's password removed (`PostgresURL.redacted`); `nil` when the
    /// command line parses, or its error shows no URL.
    static func usageErrorWithoutPasswords(_ arguments: [String]) -> String? {
        let message: String
        do {
            _ = try RequestCommand.parseAsRoot(arguments)
            return nil
        } catch {
            guard RequestCommand.exitCode(for: error) != .success else { return nil }
            message = RequestCommand.fullMessage(for: error)
        }
        var redacted = message
        for argument in arguments where argument.contains("@") || argument.contains("://") {
            redacted = redacted.replacingOccurrences(of: argument, with: PostgresURL.redacted(argument))
        }
        return redacted == message ? nil : redacted
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
