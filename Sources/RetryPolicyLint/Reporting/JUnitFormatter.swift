import RetryPolicyCore

/// `--format junit`: one test case per file, failed by its findings at or
/// above the fail level (errors; with `--strict` or `--fail-level warning`,
/// warnings too), for CI systems that only understand test reports.
///
/// Text from the file (its path, findings' messages) goes through
/// `DisplayText` before XML escaping: XML 1.0 cannot hold most control
/// characters, and the escape keeps them visible as `\u{1B}` instead of
/// losing them, while bidirectional controls and line breaks inside a name
/// cannot reorder or split what a CI dashboard shows. The line feeds
/// between findings in a failure's body are the report's own.
public struct JUnitFormatter: Sendable {
    /// The least severity that fails a file's test case.
    package var failLevel: Diagnostic.Severity

    public init(failLevel: Diagnostic.Severity) { self.failLevel = failLevel }

    public init(strict: Bool) { self.failLevel = strict ? .warning : .error }

    public func render(_ report: LintReport) -> String {
        let byFile = Dictionary(grouping: report.findings, by: \.location.file)
        var files = report.files
        for file in byFile.keys.sorted() where !files.contains(file) { files.append(file) }
        var cases = ""
        var failureCount = 0
        for file in files {
            let findings = byFile[file] ?? []
            let failing = findings.filter { $0.severity >= failLevel }
            let informational = findings.filter { !failing.contains($0) }
            cases += "    <testcase classname=\"retry-policy.lint\" name=\"\(Self.escape(DisplayText.escaped(file)))\">\n"
            if !failing.isEmpty {
                failureCount += 1
                let first = failing[0]
                let body = failing.map(\.description).joined(separator: "\n")
                cases += "      <failure type=\"\(Self.escape(first.id))\" message=\"\(Self.escape(first.description))\">"
                    + Self.escape(body) + "</failure>\n"
            }
            if !informational.isEmpty {
                cases += "      <system-out>" + Self.escape(informational.map(\.description).joined(separator: "\n")) + "</system-out>\n"
            }
            cases += "    </testcase>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="retry-policy" tests="\(files.count)" failures="\(failureCount)" errors="0">
              <testsuite name="retry-policy lint" tests="\(files.count)" failures="\(failureCount)" errors="0" skipped="0">
            \(cases)  </testsuite>
            </testsuites>

            """
    }

    /// Escapes text for XML attributes and content.
    package static func escape(_ text: String) -> String { XMLText.escape(text) }
}
