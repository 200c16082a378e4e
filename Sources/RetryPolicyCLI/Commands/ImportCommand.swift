import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyYAML
import RetryPolicyCommandSupport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write another layer's retry configuration as a policy file.",
        discussion: """
            Reads a gRPC service config (JSON), an Envoy route configuration (a RouteConfiguration, \
            route, RouteAction or bare retry_policy, YAML or JSON), an Istio VirtualService, a \
            resilience4j retry configuration (Spring YAML) or an AWS shared config file, and writes \
            the equivalent policy YAML with comments where a choice was made. Where a field is \
            absent, the source format's documented default applies (docs/interop.md).

            Settings the policy format cannot express are warnings on standard error, located in \
            the source file; --strict makes them errors. A file that breaks its own format's rules \
            (gRPC's validation, for example maxAttempts 1) is a located error.

            Exit status: 0 written; 1 the file is invalid, or --strict and something is lost; \
            2 usage or I/O error.
            """)

    @Argument(help: "The configuration file (- reads it from standard input).")
    var file: String

    @Option(help: "The source format: grpc, envoy, istio, resilience4j or aws-config.")
    var from: ImportSource

    @Option(help: ArgumentHelp("Which one to import: a resilience4j instance, an AWS profile (default: default), an Istio HTTP route name.", valueName: "name"))
    var select: String?

    @Option(help: ArgumentHelp("Write the policy to this file instead of standard output.", valueName: "path"))
    var output: String?

    @Flag(help: "Treat every setting that cannot be imported exactly as an error.")
    var strict = false

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let root = try rootOptions.policyRoot()
        if file != "-", case .failure(let denial) = root.locate(file), denial.kind == .notFound {
            throw CommandFailure("\(file): no such file")
        }
        let bytes: [UInt8]
        switch PolicyFiles.bytes(file, root: root) {
        case .success(let read): bytes = read
        case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
        }
        let imported: ImportedPolicy
        do {
            imported = try Importer.importPolicy(bytes: bytes, path: file == "-" ? "<stdin>" : file, from: from.format, selection: select)
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(diagnostic.description + "\n") }
            throw ExitCodeError(status: ExitStatus.findings)
        }
        let severity = strict ? "error" : "warning"
        for warning in imported.warnings {
            StandardError.write("\(warning.location): \(severity): \(warning.message) [\(warning.feature)]\n")
        }
        if strict && !imported.warnings.isEmpty {
            StandardError.write("error: \(imported.warnings.count) setting\(imported.warnings.count == 1 ? "" : "s") cannot be imported exactly; nothing written (--strict)\n")
            throw ExitCodeError(status: ExitStatus.findings)
        }
        if let output {
            do {
                try Data(imported.yaml.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                throw CommandFailure("\(output): cannot write (\(error.localizedDescription))")
            }
        } else {
            StandardOutput.write(imported.yaml)
        }
    }
}

enum ImportSource: String, ExpressibleByArgument, CaseIterable {
    case grpc, envoy, istio, resilience4j
    case awsConfig = "aws-config"

    var format: InteropFormat { InteropFormat(rawValue: rawValue)! }
}
