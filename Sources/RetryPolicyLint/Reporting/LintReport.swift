import RetryPolicyCore

/// Everything one lint run found, ready to render in any format.
public struct LintReport: Sendable {
    /// The files checked, in the order given.
    public var files: [String]
    public var findings: [LintFinding]

    public init(files: [String], findings: [LintFinding]) {
        self.files = files
        self.findings = findings
    }

    public func count(_ severity: LintSeverity) -> Int { findings.filter { $0.severity == severity }.count }

    /// Whether the run fails: any error, or any warning when `strict`.
    public func fails(strict: Bool) -> Bool {
        findings.contains { $0.severity == .error || (strict && $0.severity == .warning) }
    }

    /// `2 errors, 1 warning, 0 notes in 3 files`.
    public var summary: String {
        "\(plural(count(.error), "error")), \(plural(count(.warning), "warning")), \(plural(count(.note), "note")) in \(plural(files.count, "file"))"
    }

    /// The metadata of every rule a finding refers to, in id order, for
    /// formats that publish it (SARIF).
    public var referencedRules: [LintRule] {
        let ids = Set(findings.map(\.id))
        return ids.sorted().map { LintCatalog.rule(id: $0) ?? LintCatalog.loaderRule(id: $0) }
    }
}

/// The output formats of `retry-policy lint`.
public enum LintFormat: String, Sendable, CaseIterable {
    case human, json, sarif, github, junit
}
