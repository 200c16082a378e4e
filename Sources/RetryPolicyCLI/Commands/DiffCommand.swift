import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyCommandSupport

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List every input on which two policies decide differently.",
        discussion: """
            Decides every status 100-599 and every transport class, at every attempt number either \
            policy can reach, for every method either distinguishes, with both policies, and prints \
            the inputs whose action, error kind, stop reason or delay bounds differ, grouped into \
            ranges. Platform-specific error names are not compared, kinds are: this proves (or \
            refutes) a parity claim such as "iOS and Android have equivalent retry policies".

            With --against, the second file is another layer's configuration (an Envoy route, a gRPC \
            service config, an Istio VirtualService, resilience4j or AWS config; the format is \
            detected, or named with --from), imported as `retry-policy import` would, and error \
            kinds are not compared: the output lists every input where that layer's behaviour \
            (retry or not, delay, stop reason) differs from the policy's:
              retry-policy diff policies/tmdb.yaml --against mesh/envoy-route.yaml

            Exit status: 0 identical, 1 they differ, 2 usage or I/O error.
            """)

    @Argument(help: "The first policy file.")
    var first: String

    @Argument(help: "The second policy file (omit with --against).")
    var second: String?

    @Option(help: ArgumentHelp("Compare with another layer's configuration instead of a policy.", valueName: "file"))
    var against: String?

    @Option(help: "The format of the --against file (default: detected from its content).")
    var from: InteropFormat?

    @Option(help: ArgumentHelp("Which retry configuration of the --against file to compare with, when it holds several (as import --select).", valueName: "name"))
    var select: String?

    @Option(help: ArgumentHelp("Compare only these methods (repeatable; default: every method either policy distinguishes).", valueName: "method"))
    var method: [String] = []

    @Option(help: "Output format.")
    var format: OutputFormat = .human

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let root = try rootOptions.policyRoot()
        var left = try PolicyFiles.loadPolicy(first, root: root)
        let right: Policy
        let second: String
        switch (self.second, against) {
        case (let path?, nil):
            second = path
            right = try PolicyFiles.loadPolicy(path, root: root)
        case (nil, let path?):
            second = path
            right = try ForeignFiles.importPolicy(path, format: from, root: root, selection: select).withoutErrorKinds
            left = left.withoutErrorKinds
        default:
            throw CommandFailure("expected a second policy or --against FILE, not both or neither")
        }
        let methods = method.isEmpty ? nil : method.map { HTTPMethod(rawValue: $0) }
        let comparison = PolicyDiff.compare(left, right, methods: methods)
        switch format {
        case .human: StandardOutput.write(comparison.text(first: first, second: second))
        case .json: StandardOutput.write(comparison.json.rendered() + "\n")
        }
        if !comparison.isIdentical { throw ExitCodeError(status: ExitStatus.findings) }
    }
}
