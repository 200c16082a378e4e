import RetryPolicyCore

/// `--format json`: the findings and counts as one JSON object.
///
/// File names, messages and suggestions are written exactly as found,
/// without `DisplayText`, so a tool reading the report gets the exact name
/// back: `JSONValue` writes every control, line-break and bidirectional
/// character, and the `[` of a `##[`, as a `\u` escape, and a `::` inside a
/// JSON string never starts a line, so nothing in the document can steer a
/// terminal or start a workflow command.
public enum JSONFormatter {
    public static func render(_ report: LintReport) -> String {
        let findings: [JSONValue] = report.findings.map { finding in
            .object([
                ("id", .string(finding.id)),
                ("severity", .string(finding.severity.rawValue)),
                ("file", .string(finding.location.file)),
                ("line", .int(finding.location.line)),
                ("column", .int(finding.location.column)),
                ("message", .string(finding.message)),
                ("suggestion", .optional(finding.suggestion)),
                ("fix", finding.fix.map(json) ?? .null),
            ])
        }
        let document: JSONValue = .object([
            ("files", .array(report.files.map(JSONValue.string))),
            ("findings", .array(findings)),
            ("errors", .int(report.count(.error))),
            ("warnings", .int(report.count(.warning))),
            ("notes", .int(report.count(.note))),
            ("skipped", .object([
                ("not_policies", .int(report.skippedNotPolicies)),
                ("tests_files", .int(report.skippedTestsFiles)),
                ("excluded", .int(report.excluded)),
            ])),
        ])
        return document.rendered() + "\n"
    }

    /// A fix as `{description, edits: [{file, start, end, replacement}]}`,
    /// each position with its 1-based line and column (Unicode scalars)
    /// and its byte offset: what an editor or a patching tool needs.
    static func json(_ fix: LintFix) -> JSONValue {
        func position(_ position: TextPosition) -> JSONValue {
            .object([("line", .int(position.line)), ("column", .int(position.column)), ("offset", .int(position.byteOffset))])
        }
        return .object([
            ("description", .string(fix.description)),
            ("edits", .array(fix.edits.map { edit in
                .object([
                    ("file", .string(edit.file)),
                    ("start", position(edit.start)),
                    ("end", position(edit.end)),
                    ("replacement", .string(edit.replacement)),
                ])
            })),
        ])
    }
}
