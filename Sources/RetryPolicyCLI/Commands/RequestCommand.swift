import ArgumentParser
import Foundation
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor

struct RequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Send one HTTP request under a policy and print the response body.",
        discussion: """
            Like a small curl whose retries are the policy's: each attempt, wait and decision \
            follows the same engine the library runs. --verbose prints the timeline on standard \
            error. The body of the final response goes to standard output.

              retry-policy request https://api.example.com/v1/items --policy policies/tmdb.yaml -v

            Exit status: 0 success; 2 usage error or a policy that does not load; otherwise the \
            error kind the policy chose: 10 no_fill, 11 network_error, 12 status_429, 13 status_5xx, \
            14 timeout, 15 internal_error, 16 invalid_placement, 17 unauthorized, 18 not_found, \
            19 cancelled, 20 decoding_failed, 30 a kind the policy declares itself.
            """)

    @Argument(help: "The URL to request.")
    var url: String

    @Option(help: "The policy file the request runs under.")
    var policy: String

    @Option(name: [.customShort("X"), .long], help: "The request method.")
    var method: String = "GET"

    @Option(name: [.customShort("H"), .customLong("header")], help: ArgumentHelp("A request header, 'Name: value' (repeatable).", valueName: "header"))
    var headers: [String] = []

    @Option(name: [.customShort("d"), .long], help: "The request body.")
    var data: String?

    @Option(help: "The endpoint (placement) whose timeout overrides apply.")
    var endpoint: String?

    @Option(help: "Seed for the jitter draws, for a reproducible schedule.")
    var seed: UInt64?

    @Flag(name: [.short, .long], help: "Print every attempt, wait and decision on standard error.")
    var verbose = false

    func validate() throws {
        for header in headers where PolicyRequest.header(header) == nil {
            throw ValidationError("--header expects 'Name: value', found '\(header)'")
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw ValidationError("the URL must start with http:// or https://, found '\(url)'")
        }
    }

    func run() async throws {
        let loaded: Policy
        do {
            loaded = try PolicyFiles.loadPolicy(policy)
        } catch is ExitCodeError {
            throw ExitCodeError(status: ExitStatus.usage)
        }
        let request = PolicyRequest(
            url: url, method: method, headers: headers.compactMap(PolicyRequest.header),
            body: data.map { Array($0.utf8) }, endpoint: endpoint)
        var observer: RetryObserver?
        if verbose {
            observer = { @Sendable (event: RetryEvent) in StandardError.write("* \(event.description)\n") }
        }
        do {
            let response = try await RetryingHTTPClient.perform(request, policy: loaded, seed: seed, observer: observer)
            if verbose { StandardError.write("< HTTP \(response.statusCode)\n") }
            StandardOutput.write(String(decoding: response.body.readableBytesView, as: UTF8.self))
        } catch {
            StandardError.write("error: \(error.description)\n")
            throw ExitCodeError(status: RequestExitStatus.code(for: error.kind))
        }
    }
}
