import ArgumentParser
import Foundation
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Perform an HTTP request under a policy, like curl --retry with the policy's rules.",
        discussion: """
            Examples:
              retry-policy request https://api.themoviedb.org/3/movie/550 --policy policies/tmdb.yaml
              retry-policy request https://auction.example.com/v1/auction --policy policies/ios-sdk.yaml \\
                  --method POST --header 'Content-Type: application/json' --data @auction.json \\
                  --endpoint main_banner --verbose

            The body of the response the policy accepted goes to standard output; when the request \
            fails, the body of the last response (if any) still goes there, like curl without -f. \
            --verbose prints the timeline of attempts, decisions and waits on standard error.

            Exit status: 0 success; 1 the policy file does not load; 2 usage or I/O error; \
            otherwise the code of the error kind that ended the request: 10 no_fill, \
            11 network_error, 12 status_429, 13 status_5xx, 14 timeout, 15 internal_error, \
            16 invalid_placement, 17 unauthorized, 18 not_found, 19 cancelled, 20 decoding_failed, \
            30 a kind the policy declares itself.
            """)

    @Argument(help: "The URL to request.")
    var url: String

    @Option(help: "The policy file the request runs under.")
    var policy: String

    @Option(help: "The request method.")
    var method: String = "GET"

    @Option(name: [.customLong("header"), .customShort("H")], help: ArgumentHelp("A request header, 'Name: value' (repeatable).", valueName: "header"))
    var headers: [String] = []

    @Option(name: [.customLong("data"), .customShort("d")], help: ArgumentHelp("The request body: text, @FILE, or @- for standard input.", valueName: "data"))
    var data: String?

    @Option(help: "The endpoint (placement) whose timeout overrides apply.")
    var endpoint: String?

    @Option(help: "Seed for the backoff jitter, for a reproducible timeline.")
    var seed: UInt64?

    @Flag(name: [.customLong("verbose"), .customShort("v")], help: "Print the timeline of attempts and decisions on standard error.")
    var verbose = false

    @OptionGroup var rootOptions: RootOptions

    func validate() throws {
        for header in headers where PolicyRequest.header(header) == nil {
            throw ValidationError("--header must look like 'Name: value', found '\(header)'")
        }
    }

    func run() async throws {
        let policy = try PolicyFiles.loadPolicy(self.policy, root: rootOptions.policyRoot())
        let request = PolicyRequest(
            url: url, method: method, headers: headers.compactMap(PolicyRequest.header), body: try body(),
            endpoint: endpoint)
        var observer: RetryObserver?
        if verbose {
            observer = { @Sendable (event: RetryEvent) in StandardError.write("* \(event.description)\n") }
        }
        do {
            let response = try await RetryingHTTPClient.perform(request, policy: policy, seed: seed, observer: observer)
            FileHandle.standardOutput.write(Data(response.body.readableBytesView))
        } catch {
            if let last = error.lastResponse as? HTTPResponse {
                FileHandle.standardOutput.write(Data(last.body.readableBytesView))
            }
            StandardError.write("error: \(error.error.message) (\(error.reason.rawValue) after \(error.attempts.count) attempt\(error.attempts.count == 1 ? "" : "s"))\n")
            throw ExitCodeError(status: RequestExitStatus.code(for: error.error.kind))
        }
    }

    private func body() throws(CommandFailure) -> [UInt8]? {
        guard let data else { return nil }
        guard data.hasPrefix("@") else { return Array(data.utf8) }
        let path = String(data.dropFirst())
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(path): cannot read the request body")
        }
        return Array(contents)
    }
}
