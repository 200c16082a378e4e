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
    package static let schemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
    package static let toolVersion = RetryPolicyVersion.current

    /// Where the rule documentation is published: the `docs/` folder of the
    /// repository at this version's tag, so a link shows the rules as the
    /// version that reported them describes them.
    package static let documentationBaseURI = "https://github.com/swift-retry-policy/swift-retry-policy/blob/\(toolVersion)/docs/"

    /// The documentation of `rule`, for SARIF's `helpUri`: loader rules
    /// (`RP0xx`) are described in the table of policy-files.md, lint rules
    /// in the table of cli.md, each row carrying the rule's id, lower-cased,
    /// as its anchor (`cli.md#rp101`).
    package static func helpURI(for rule: LintRule) -> String {
        let page = rule.id.hasPrefix("RP0") ? "policy-files.md" : "cli.md"
        return documentationBaseURI + page + "#" + rule.id.lowercased()
    }

    /// The base that relative artifact URIs resolve against: the root
    /// (`%SRCROOT%`, the name GitHub code scanning and most SARIF tools
    /// use for the checkout).
    package static let rootBaseID = "%SRCROOT%"

    /// How the log describes `%SRCROOT%`. Its absolute URI is left out on
    /// purpose: the same checkout gives the same log on every machine, and
    /// consumers (code scanning) resolve it as the repository's top.
    package static let rootDescription =
        "The root the files were read in: the enclosing git work tree, or --root. Every relative uri resolves against it."

    /// One result of a run, in the shape both `lint` and `test` report.
    public struct Result: Sendable {
        package var ruleID: String
        public var level: Diagnostic.Severity
        public var message: String
        public var location: SourceLocation
        public var fix: LintFix?

        public init(ruleID: String, level: Diagnostic.Severity, message: String, location: SourceLocation, fix: LintFix? = nil) {
            self.ruleID = ruleID
            self.level = level
            self.message = message
            self.location = location
            self.fix = fix
        }
    }

    /// The lint report as a SARIF log. With `rooted`, the report's
    /// relative paths are relative to the root: each carries the base
    /// `%SRCROOT%`, which `originalUriBaseIds` declares.
    public static func render(_ report: LintReport, rooted: Bool = false) -> String {
        let results = report.findings.map { finding in
            var message = finding.message
            if let suggestion = finding.suggestion { message += " (\(suggestion))" }
            return Result(ruleID: finding.id, level: finding.severity, message: message, location: finding.location, fix: finding.fix)
        }
        var properties: [(String, JSONValue)] = []
        // What a directory walk left alone, in the run's property bag.
        if report.skippedNotPolicies + report.skippedTestsFiles + report.excluded > 0 {
            properties = [
                ("skippedNotPolicies", .int(report.skippedNotPolicies)),
                ("skippedTestsFiles", .int(report.skippedTestsFiles)),
                ("excludedBySettings", .int(report.excluded)),
            ]
        }
        return render(
            rules: report.referencedRules, results: results, helpURI: { helpURI(for: $0) }, rooted: rooted, properties: properties)
    }

    /// A SARIF log of one run of `retry-policy`: `rules` are the
    /// reporting descriptors the results refer to by id.
    public static func render(
        rules: [LintRule], results: [Result], helpURI: (LintRule) -> String?, rooted: Bool,
        properties: [(String, JSONValue)] = []
    ) -> String {
        let ruleIndex = Dictionary(rules.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let ruleObjects: [JSONValue] = rules.map { rule in
            var members: [(String, JSONValue)] = [
                ("id", .string(rule.id)),
                ("name", .string(rule.name)),
                ("shortDescription", .object([("text", .string(rule.summary))])),
                ("fullDescription", .object([("text", .string(rule.explanation))])),
            ]
            if let uri = helpURI(rule) { members.append(("helpUri", .string(uri))) }
            members += [
                ("help", .object([("text", .string(rule.explanation))])),
                ("defaultConfiguration", .object([("level", .string(level(rule.defaultSeverity)))])),
            ]
            return .object(members)
        }
        let resultObjects: [JSONValue] = results.map { result in
            var members: [(String, JSONValue)] = [
                ("ruleId", .string(result.ruleID)),
                ("ruleIndex", .int(ruleIndex[result.ruleID] ?? 0)),
                ("level", .string(level(result.level))),
                ("message", .object([("text", .string(result.message))])),
                ("locations", .array([
                    .object([
                        ("physicalLocation", .object([
                            ("artifactLocation", artifactLocation(result.location.file, rooted: rooted)),
                            ("region", .object([
                                ("startLine", .int(max(result.location.line, 1))),
                                ("startColumn", .int(max(result.location.column, 1))),
                            ])),
                        ]))
                    ])
                ])),
            ]
            if let fix = result.fix { members.append(("fixes", .array([sarifFix(fix, rooted: rooted)]))) }
            return .object(members)
        }
        var run: [(String, JSONValue)] = [
            ("tool", .object([
                ("driver", .object([
                    ("name", "retry-policy"),
                    ("version", .string(toolVersion)),
                    ("rules", .array(ruleObjects)),
                ]))
            ])),
        ]
        if rooted {
            run.append(("originalUriBaseIds", .object([
                (rootBaseID, .object([("description", .object([("text", .string(rootDescription))]))]))
            ])))
        }
        run += [
            ("results", .array(resultObjects)),
            // Columns count Unicode scalars, as the loader's locations do.
            ("columnKind", "unicodeCodePoints"),
        ]
        if !properties.isEmpty { run.append(("properties", .object(properties))) }
        let document: JSONValue = .object([
            ("$schema", .string(schemaURI)),
            ("version", "2.1.0"),
            ("runs", .array([.object(run)])),
        ])
        return document.rendered() + "\n"
    }

    /// `{uri, uriBaseId}`: a relative path resolves against `%SRCROOT%`
    /// when the log names the root; an absolute one is a `file://` URI
    /// of its own, and standard input has no base.
    static func artifactLocation(_ file: String, rooted: Bool) -> JSONValue {
        let encoded = uri(file)
        guard rooted, !file.hasPrefix("/"), !file.hasPrefix("<") else { return .object([("uri", .string(encoded))]) }
        return .object([("uri", .string(encoded)), ("uriBaseId", .string(rootBaseID))])
    }

    /// A fix as SARIF's `fix`: one `artifactChange` per file, each edit a
    /// `replacement` of a line-and-column region.
    static func sarifFix(_ fix: LintFix, rooted: Bool) -> JSONValue {
        var files: [String] = []
        for edit in fix.edits where !files.contains(edit.file) { files.append(edit.file) }
        let changes: [JSONValue] = files.map { file in
            .object([
                ("artifactLocation", artifactLocation(file, rooted: rooted)),
                ("replacements", .array(fix.edits.filter { $0.file == file }.map { edit in
                    .object([
                        ("deletedRegion", .object([
                            ("startLine", .int(edit.start.line)),
                            ("startColumn", .int(edit.start.column)),
                            ("endLine", .int(edit.end.line)),
                            ("endColumn", .int(edit.end.column)),
                        ])),
                        ("insertedContent", .object([("text", .string(edit.replacement))])),
                    ])
                })),
            ])
        }
        return .object([("description", .object([("text", .string(fix.description))])), ("artifactChanges", .array(changes))])
    }

    static func level(_ severity: Diagnostic.Severity) -> String {
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
