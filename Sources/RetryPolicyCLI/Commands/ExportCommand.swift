import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyCommandSupport

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a policy as another layer's retry configuration (\(InteropFormat.names(InteropFormat.exportable))).",
        discussion: """
            \(InteropFormat.exportHelp) Paste them in place.

            Everything the target cannot express is printed on standard error as a warning located \
            at the policy key that causes it; --strict makes them errors (nothing is written, exit 1). \
            Mappings and their limits: docs/interop.md.

            Exit status: 0 written; 1 the policy does not load, or --strict and something is lost; \
            2 usage or I/O error.
            """)

    @Argument(help: "The policy file (- reads it from standard input).")
    var policy: String

    @Option(help: "The target format: \(InteropFormat.names(InteropFormat.exportable)).")
    var to: InteropFormat

    @Option(help: "Output syntax (default: the target's own, JSON for grpc and YAML for the others).")
    var syntax: ExportSyntax?

    @Flag(help: "Treat every lossy mapping as an error.")
    var strict = false

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let loaded = try PolicyFiles.loadPolicy(policy, root: rootOptions.policyRoot())
        let file = policy == "-" ? "<stdin>" : policy
        guard let result = to.handler.export(loaded, file: file) else {
            throw CommandFailure("\(to) is import-only; export writes \(InteropFormat.names(InteropFormat.exportable))")
        }
        let severity: Diagnostic.Severity = strict ? .error : .warning
        for warning in result.warnings {
            var diagnostic = warning.diagnostic
            diagnostic.severity = severity
            StandardError.write(diagnostic.description + "\n")
        }
        if strict && !result.warnings.isEmpty {
            StandardError.write("error: \(plural(result.warnings.count, "setting")) cannot be expressed in \(to.title); nothing written (--strict)\n")
            throw ExitCodeError(status: ExitStatus.findings)
        }
        switch syntax {
        case .json: StandardOutput.write(result.json)
        case .yaml: StandardOutput.write(result.yaml)
        case nil: StandardOutput.write(result.text)
        }
    }
}

enum ExportSyntax: String, ExpressibleByArgument, CaseIterable {
    case json, yaml
}
