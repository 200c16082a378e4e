import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicySimulation
import RetryPolicyYAML
import RetryPolicyCommandSupport

struct TestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the unit tests of policies (NAME.tests.yaml files).",
        discussion: """
            A test file sits next to its policy (tmdb.yaml -> tmdb.tests.yaml) and lists cases: an \
            input (status or transport, attempt, elapsed, method, Retry-After) with the decision it \
            must get (action, error, reason, delay bounds, deciding rule), and whole response \
            sequences with the result they must end in. See docs/cli.md for the format.

            PATH may be a test file, a policy file (its tests are run), or a directory (searched \
            recursively for *.tests.yaml). Failing cases are reported as file:line:col with the \
            expected and actual values; with --format github as annotations on the case, with \
            --format sarif as results, with --format junit as failed test cases. Paths are named \
            from the root, as lint names them.

            Exit status: 0 all passed (or no test file found, with a warning), 1 a case failed or a \
            test file is invalid, 2 usage or I/O error.
            """)

    @Argument(help: "Test files, policy files or directories (default: the current directory); - reads one test file from standard input.")
    var paths: [String] = []

    @Option(help: "Output format.")
    var format: TestFormat = .human

    @Flag(help: "Print only failures and invalid files: no passing files, no summary line (human and github formats).")
    var quiet = false

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let root = try rootOptions.policyRoot()
        let found = try PolicyFiles.testFiles(in: paths.isEmpty ? ["."] : paths, root: root)
        let files = found.map(\.path)
        let names = RootRelativePaths(root: root)
        /// A loader diagnostic, its file named from the root.
        func problem(_ diagnostic: Diagnostic) -> Diagnostic {
            var diagnostic = diagnostic
            diagnostic.location.file = names.relative(diagnostic.location.file)
            return diagnostic
        }
        var results: [PolicyTestResult] = []
        var invalid: [PolicyTestReport.InvalidFile] = []
        for entry in found {
            let file = entry.path == "-" ? LintRun.standardInputName : entry.path
            if let unusable = entry.problem {
                invalid.append(.init(file: file, problems: [problem(unusable).description], location: unusable.location))
                continue
            }
            let text: String
            do {
                text = try PolicyFiles.read(entry.path, root: root)
            } catch {
                invalid.append(.init(file: file, problems: [error.message]))
                continue
            }
            let suite: PolicyTestSuite
            do {
                suite = try PolicyTestSuite(yaml: text, path: file)
            } catch {
                invalid.append(.init(
                    file: file, problems: error.diagnostics.map { problem($0).description }, location: error.diagnostics.first?.location))
                continue
            }
            let policyPath = LintRun.resolve(suite.policyReference, relativeTo: file)
            let bytes: [UInt8]
            let reference = suite.policyLocation ?? SourceLocation(file: file, line: 1, column: 1)
            switch root.readReferencedFile(policyPath, reportedAt: reference) {
            case .success(let read): bytes = read
            case .failure(let error):
                invalid.append(.init(
                    file: file,
                    problems: error.diagnostics.map {
                        var shown = problem($0)
                        shown.message = "the policy under test: " + shown.message
                        return shown.description
                    },
                    location: reference))
                continue
            }
            do {
                let policy = try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: policyPath)
                results.append(PolicyTestRunner.run(suite, policy: policy))
            } catch {
                invalid.append(.init(
                    file: file,
                    problems: ["\(DisplayText.escaped(names.relative(file))): the policy under test cannot be loaded:"]
                        + error.diagnostics.map { problem($0).description },
                    location: reference))
            }
        }
        let report = PolicyTestReport(fileCount: files.count, results: results, invalid: invalid).mappingPaths(names.relative)
        switch format {
        case .human: StandardOutput.write(report.text(quiet: quiet))
        case .json: StandardOutput.write(report.json.rendered() + "\n")
        case .junit: StandardOutput.write(report.junit)
        case .github: StandardOutput.write(PolicyTestCIFormats.github(report, quiet: quiet))
        case .sarif: StandardOutput.write(PolicyTestCIFormats.sarif(report))
        }
        if files.isEmpty { StandardError.write("warning: no policy test files found\n") }
        if report.failed > 0 || !invalid.isEmpty { throw ExitCodeError(status: ExitStatus.findings) }
    }
}

enum TestFormat: String, ExpressibleByArgument, CaseIterable {
    case human, json, junit, github, sarif
}

/// `--format human|json` for commands that print a result.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case human, json
}

