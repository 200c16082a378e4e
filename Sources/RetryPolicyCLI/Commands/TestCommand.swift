import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
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
            expected and actual values.

            Exit status: 0 all passed, 1 a case failed or a test file is invalid, 2 usage or I/O error.
            """)

    @Argument(help: "Test files, policy files or directories (default: the current directory); - reads one test file from standard input.")
    var paths: [String] = []

    @Option(help: "Output format.")
    var format: TestFormat = .human

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let root = try rootOptions.policyRoot()
        let found = try PolicyFiles.testFiles(in: paths.isEmpty ? ["."] : paths, root: root)
        let files = found.map(\.path)
        var results: [PolicyTestResult] = []
        var invalid: [(file: String, problems: [String])] = []
        for entry in found {
            let file = entry.path == "-" ? LintRun.standardInputName : entry.path
            if let problem = entry.problem {
                invalid.append((file, [problem.description]))
                continue
            }
            let text: String
            do {
                text = try PolicyFiles.read(entry.path, root: root)
            } catch {
                invalid.append((file, [error.message]))
                continue
            }
            let suite: PolicyTestSuite
            do {
                suite = try PolicyTestSuite(yaml: text, path: file)
            } catch {
                invalid.append((file, error.diagnostics.map(\.description)))
                continue
            }
            let policyPath = LintRun.resolve(suite.policyReference, relativeTo: file)
            let bytes: [UInt8]
            switch root.readReferencedFile(policyPath, reportedAt: suite.policyLocation ?? SourceLocation(file: file, line: 1, column: 1)) {
            case .success(let read): bytes = read
            case .failure(let error):
                invalid.append((file, error.diagnostics.map { "\($0.location): error: the policy under test: \($0.message) [\($0.id)]" }))
                continue
            }
            do {
                let policy = try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: policyPath)
                results.append(PolicyTestRunner.run(suite, policy: policy))
            } catch {
                invalid.append((file, ["\(file): the policy under test cannot be loaded:"] + error.diagnostics.map(\.description)))
            }
        }
        let passed = results.reduce(0) { $0 + $1.passed }
        let failed = results.reduce(0) { $0 + $1.failures.count }
        switch format {
        case .human:
            var output = ""
            for result in results {
                if result.failures.isEmpty {
                    output += "PASS \(result.suite.path): \(plural(result.passed, "case")) passed\n"
                } else {
                    output += "FAIL \(result.suite.path): \(result.failures.count) of \(plural(result.total, "case")) failed\n"
                    for failure in result.failures {
                        output += "  \(failure.location): case '\(failure.name)' failed\n"
                        for mismatch in failure.mismatches {
                            output += "      \(mismatch.field): expected \(mismatch.expected), got \(mismatch.actual)\n"
                        }
                        output += "      actual: \(failure.actual)\n"
                    }
                }
            }
            for entry in invalid {
                output += "ERROR \(entry.file):\n" + entry.problems.map { "  " + $0 + "\n" }.joined()
            }
            output += "\(plural(files.count, "test file")), \(plural(passed + failed, "case")): \(passed) passed, \(failed) failed"
            output += invalid.isEmpty ? "\n" : ", \(invalid.count) invalid\n"
            StandardOutput.write(output)
        case .json:
            let document: JSONValue = .object([
                ("files", .array(results.map { result in
                    .object([
                        ("file", .string(result.suite.path)),
                        ("passed", .int(result.passed)),
                        ("failures", .array(result.failures.map { failure in
                            .object([
                                ("name", .string(failure.name)),
                                ("file", .string(failure.location.file)),
                                ("line", .int(failure.location.line)),
                                ("column", .int(failure.location.column)),
                                ("mismatches", .array(failure.mismatches.map {
                                    .object([("field", .string($0.field)), ("expected", .string($0.expected)), ("actual", .string($0.actual))])
                                })),
                                ("actual", .string(failure.actual)),
                            ])
                        })),
                    ])
                })),
                ("invalid", .array(invalid.map { .object([("file", .string($0.file)), ("problems", .array($0.problems.map(JSONValue.string)))]) })),
                ("passed", .int(passed)),
                ("failed", .int(failed)),
            ])
            StandardOutput.write(document.rendered() + "\n")
        case .junit:
            StandardOutput.write(junit(results: results, invalid: invalid))
        }
        if files.isEmpty { StandardError.write("warning: no policy test files found\n") }
        if failed > 0 || !invalid.isEmpty { throw ExitCodeError(status: ExitStatus.findings) }
    }
}

extension TestCommand {
    /// One test suite per file and one test case per case, for CI systems
    /// that display test reports.
    func junit(results: [PolicyTestResult], invalid: [(file: String, problems: [String])]) -> String {
        let escape = JUnitFormatter.escape
        var suites = ""
        var total = 0
        var failures = 0
        for result in results {
            total += result.total
            failures += result.failures.count
            suites += "  <testsuite name=\"\(escape(result.suite.path))\" tests=\"\(result.total)\" failures=\"\(result.failures.count)\" errors=\"0\">\n"
            for outcome in result.outcomes {
                suites += "    <testcase classname=\"\(escape(result.suite.path))\" name=\"\(escape(outcome.name))\" file=\"\(escape(outcome.location.file))\" line=\"\(outcome.location.line)\""
                if let failure = outcome.failure {
                    let body = failure.mismatches.map { "\($0.field): expected \($0.expected), got \($0.actual)" }.joined(separator: "\n")
                    suites += ">\n      <failure message=\"\(escape(failure.description))\">\(escape(body))</failure>\n    </testcase>\n"
                } else {
                    suites += "/>\n"
                }
            }
            suites += "  </testsuite>\n"
        }
        for entry in invalid {
            total += 1
            suites += "  <testsuite name=\"\(escape(entry.file))\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
            suites += "    <testcase classname=\"\(escape(entry.file))\" name=\"load test file\">\n"
            suites += "      <error message=\"invalid test file\">\(escape(entry.problems.joined(separator: "\n")))</error>\n    </testcase>\n  </testsuite>\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"retry-policy test\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"\(invalid.count)\">\n"
            + suites + "</testsuites>\n"
    }
}

enum TestFormat: String, ExpressibleByArgument, CaseIterable {
    case human, json, junit
}

/// `--format human|json` for commands that print a result.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case human, json
}

