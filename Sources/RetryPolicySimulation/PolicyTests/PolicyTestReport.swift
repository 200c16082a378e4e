import RetryPolicyCore

/// What `retry-policy test` reports about a run of policy test files: per
/// file, its passes and failures with expected and actual values, and the
/// files that could not be run. As text, JSON, or JUnit XML for CI systems
/// that display test reports.
///
/// `retry-policy test` runs on untrusted pull requests, so every text from
/// a file (paths, case names, expected and actual values, problems) goes
/// through `DisplayText` in the text and JUnit forms: no case name can
/// steer the terminal, start a line of its own or forge a CI annotation.
/// JUnit keeps control characters visible as `\u{1B}` (XML 1.0 cannot hold
/// them). The JSON form keeps the exact text: `JSONValue` writes every
/// character that could steer a terminal or a CI log as a `\u` escape, and
/// a `::` inside a JSON string never starts a line.
public struct PolicyTestReport: Sendable {
    /// A test file that could not be run (unreadable, invalid, or its
    /// policy cannot be loaded), with its problems.
    public struct InvalidFile: Sendable {
        public var file: String
        public var problems: [String]
        /// Where the first problem is, for CI annotations; `nil`: the file
        /// as a whole.
        public var location: SourceLocation?

        public init(file: String, problems: [String], location: SourceLocation? = nil) {
            self.file = file
            self.problems = problems
            self.location = location
        }
    }

    /// How many test files were found.
    package var fileCount: Int
    public var results: [PolicyTestResult]
    public var invalid: [InvalidFile]

    public init(fileCount: Int, results: [PolicyTestResult], invalid: [InvalidFile]) {
        self.fileCount = fileCount
        self.results = results
        self.invalid = invalid
    }

    public var passed: Int { results.reduce(0) { $0 + $1.passed } }
    public var failed: Int { results.reduce(0) { $0 + $1.failures.count } }

    /// `PASS`/`FAIL` per file with every mismatch, `ERROR` per invalid file,
    /// and a summary line.
    public var text: String { text(quiet: false) }

    /// ``text``; with `quiet`, only the failing files and invalid ones,
    /// without `PASS` lines or the summary.
    public func text(quiet: Bool) -> String {
        let shown = { (text: String) in DisplayText.escaped(text) }
        var output = ""
        for result in results {
            if result.failures.isEmpty {
                if quiet { continue }
                output += "PASS \(shown(result.suite.path)): \(plural(result.passed, "case")) passed\n"
            } else {
                output += "FAIL \(shown(result.suite.path)): \(result.failures.count) of \(plural(result.total, "case")) failed\n"
                for failure in result.failures {
                    output += "  \(shown(failure.location.description)): case '\(shown(failure.name))' failed\n"
                    for mismatch in failure.mismatches {
                        output += "      \(mismatch)\n"
                    }
                    output += "      actual: \(shown(failure.actual))\n"
                }
            }
        }
        for entry in invalid {
            output += "ERROR \(shown(entry.file)):\n" + entry.problems.map { "  " + shown($0) + "\n" }.joined()
        }
        if quiet { return output }
        return output + summary + "\n"
    }

    /// The report with every file name passed through `transform` (the
    /// files, the cases' locations); problems' texts are left as written.
    package func mappingPaths(_ transform: (String) -> String) -> PolicyTestReport {
        var mapped = self
        mapped.results = results.map { result in
            var result = result
            result.suite.path = transform(result.suite.path)
            result.failures = result.failures.map { failure in
                var failure = failure
                failure.location.file = transform(failure.location.file)
                return failure
            }
            result.outcomes = result.outcomes.map { outcome in
                var outcome = outcome
                if let file = outcome.failure?.location.file { outcome.failure?.location.file = transform(file) }
                outcome.location.file = transform(outcome.location.file)
                return outcome
            }
            return result
        }
        mapped.invalid = invalid.map { entry in
            var entry = entry
            entry.file = transform(entry.file)
            if let file = entry.location?.file { entry.location?.file = transform(file) }
            return entry
        }
        return mapped
    }

    /// The summary line: `2 test files, 5 cases: 4 passed, 1 failed`.
    package var summary: String {
        let passed = passed
        let failed = failed
        return "\(plural(fileCount, "test file")), \(plural(passed + failed, "case")): \(passed) passed, \(failed) failed"
            + (invalid.isEmpty ? "" : ", \(invalid.count) invalid")
    }

    public var json: JSONValue {
        .object([
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
    }

    /// One test suite per file and one test case per case; an invalid file
    /// is a suite with one erroring case.
    public var junit: String {
        let escape = { (text: String) in XMLText.escape(DisplayText.escaped(text)) }
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
                    let body = failure.mismatches.map { escape($0.description) }.joined(separator: "\n")
                    suites += ">\n      <failure message=\"\(escape(failure.description))\">\(body)</failure>\n    </testcase>\n"
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
            let problems = entry.problems.map(escape).joined(separator: "\n")
            suites += "      <error message=\"invalid test file\">\(problems)</error>\n    </testcase>\n  </testsuite>\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"retry-policy test\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"\(invalid.count)\">\n"
            + suites + "</testsuites>\n"
    }
}
