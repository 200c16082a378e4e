import RetryPolicyCore

/// `--format sarif`: SARIF 2.1.0 (OASIS), the format GitHub code scanning
/// and most CI dashboards ingest, with rule metadata so that a finding's
/// explanation is one click away.
///
/// Messages are written exactly as found, without `DisplayText`: as in
/// `JSONFormatter`, `JSONValue` writes every character that could steer a
/// terminal or a CI log as a `\u` escape, and a `::` inside a JSON string
/// never starts a line. File paths are percent-encoded URIs.
public enum SARIFFormatter {
    public static let schemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
    public static let toolVersion = RetryPolicyVersion.current

    /// Where the rule documentation is published: the `docs/` folder of the
    /// repository at this version's tag, so a link shows the rules as the
    /// version that reported them describes them.
    public static let documentationBaseURI = "https://github.com/swift-retry-policy/swift-retry-policy/blob/\(toolVersion)/docs/"

    /// The documentation of `rule`, for SARIF's `helpUri`: loader rules
    /// (`RP0xx`) are described in the table of policy-files.md, lint rules
    /// in the table of cli.md, each row carrying the rule's id, lower-cased,
    /// as its anchor (`cli.md#rp101`).
    public static func helpURI(for rule: LintRule) -> String {
        let page = rule.id.hasPrefix("RP0") ? "policy-files.md" : "cli.md"
        return documentationBaseURI + page + "#" + rule.id.lowercased()
    }

    public static func render(_ report: LintReport) -> String {
        let rules = report.referencedRules
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($0.element.id, $0.offset) })
        let ruleObjects: [JSONValue] = rules.map { rule in
            .object([
                ("id", .string(rule.id)),
                ("name", .string(rule.name)),
                ("shortDescription", .object([("text", .string(rule.summary))])),
                ("fullDescription", .object([("text", .string(rule.explanation))])),
                ("helpUri", .string(helpURI(for: rule))),
                ("help", .object([("text", .string(rule.explanation))])),
                ("defaultConfiguration", .object([("level", .string(level(rule.defaultSeverity)))])),
            ])
        }
        let results: [JSONValue] = report.findings.map { finding in
            var message = finding.message
            if let suggestion = finding.suggestion { message += " (\(suggestion))" }
            return .object([
                ("ruleId", .string(finding.id)),
                ("ruleIndex", .int(ruleIndex[finding.id] ?? 0)),
                ("level", .string(level(finding.severity))),
                ("message", .object([("text", .string(message))])),
                ("locations", .array([
                    .object([
                        ("physicalLocation", .object([
                            ("artifactLocation", .object([("uri", .string(uri(finding.location.file)))])),
                            ("region", .object([
                                ("startLine", .int(max(finding.location.line, 1))),
                                ("startColumn", .int(max(finding.location.column, 1))),
                            ])),
                        ]))
                    ])
                ])),
            ])
        }
        var run: [(String, JSONValue)] = [
            ("tool", .object([
                ("driver", .object([
                    ("name", "retry-policy"),
                    ("version", .string(toolVersion)),
                    ("rules", .array(ruleObjects)),
                ]))
            ])),
            ("results", .array(results)),
        ]
        // What a directory walk left alone, in the run's property bag.
        if report.skippedNotPolicies + report.skippedTestsFiles + report.excluded > 0 {
            run.append(("properties", .object([
                ("skippedNotPolicies", .int(report.skippedNotPolicies)),
                ("skippedTestsFiles", .int(report.skippedTestsFiles)),
                ("excludedBySettings", .int(report.excluded)),
            ])))
        }
        let document: JSONValue = .object([
            ("$schema", .string(schemaURI)),
            ("version", "2.1.0"),
            ("runs", .array([.object(run)])),
        ])
        return document.rendered() + "\n"
    }

    static func level(_ severity: LintSeverity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .note: "note"
        }
    }

    /// A relative path stays relative (code scanning resolves it against
    /// the checkout); an absolute one becomes a `file://` URI. Characters
    /// outside the URI unreserved set are percent-encoded.
    static func uri(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }
}
