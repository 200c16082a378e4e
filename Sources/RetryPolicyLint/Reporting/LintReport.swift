import RetryPolicyCore

/// Everything one lint run found, ready to render in any format.
public struct LintReport: Sendable {
    /// The files checked, in the order given.
    public var files: [String]
    public var findings: [LintFinding]
    /// YAML files found by walking a directory that are not policies
    /// (Compose, Kubernetes, workflows...), left alone.
    package var skippedNotPolicies: Int
    /// Tests files found by walking a directory (`retry-policy test` runs them).
    package var skippedTestsFiles: Int
    /// YAML files the settings' `include:`/`exclude:` left out.
    public var excluded: Int

    public init(files: [String], findings: [LintFinding], skippedNotPolicies: Int = 0, skippedTestsFiles: Int = 0, excluded: Int = 0) {
        self.files = files
        self.findings = findings
        self.skippedNotPolicies = skippedNotPolicies
        self.skippedTestsFiles = skippedTestsFiles
        self.excluded = excluded
    }

    /// Every YAML file the walk looked at.
    public var searched: Int { files.count + skippedNotPolicies + skippedTestsFiles + excluded }

    public func count(_ severity: Diagnostic.Severity) -> Int { findings.filter { $0.severity == severity }.count }

    /// Whether the run fails: any error, or any warning when `strict`.
    public func fails(strict: Bool) -> Bool {
        fails(at: strict ? .warning : .error)
    }

    /// Whether the run fails at `level`: any finding that severe or more.
    public func fails(at level: Diagnostic.Severity) -> Bool {
        findings.contains { $0.severity >= level }
    }

    /// The report with every file name passed through `transform`: the
    /// files, the findings' locations and their fixes' edits.
    package func mappingPaths(_ transform: (String) -> String) -> LintReport {
        var mapped = self
        mapped.files = files.map(transform)
        mapped.findings = findings.map { finding in
            var finding = finding
            finding.location.file = transform(finding.location.file)
            if var fix = finding.fix {
                fix.edits = fix.edits.map { edit in
                    var edit = edit
                    edit.file = transform(edit.file)
                    return edit
                }
                finding.fix = fix
            }
            return finding
        }
        return mapped
    }

    /// `2 errors, 1 warning, 0 notes in 3 files`.
    /// `2 errors, 1 warning, 0 notes in 3 files; skipped 4 YAML files that
    /// are not policies`. Tests files are not mentioned: beside their
    /// policies they are the expected company, not a surprise.
    package var summary: String {
        let counts = "\(plural(count(.error), "error")), \(plural(count(.warning), "warning")), \(plural(count(.note), "note")) in \(plural(files.count, "file"))"
        let skipped = skippedText(testsFiles: false)
        return skipped.isEmpty ? counts : counts + "; skipped " + skipped
    }

    /// `4 YAML files that are not policies, 1 tests file, 2 excluded by
    /// settings`; empty when nothing was skipped.
    package func skippedText(testsFiles: Bool = true) -> String {
        var parts: [String] = []
        if skippedNotPolicies > 0 {
            parts.append("\(plural(skippedNotPolicies, "YAML file")) that \(skippedNotPolicies == 1 ? "is not a policy" : "are not policies")")
        }
        if testsFiles, skippedTestsFiles > 0 { parts.append(plural(skippedTestsFiles, "tests file")) }
        if excluded > 0 { parts.append("\(excluded) excluded by settings") }
        return parts.joined(separator: ", ")
    }

    /// The metadata of every rule a finding refers to, in id order, for
    /// formats that publish it (SARIF).
    package var referencedRules: [LintRule] {
        let ids = Set(findings.map(\.id))
        return ids.sorted().map { LintCatalog.rule(id: $0) ?? LintCatalog.loaderRule(id: $0) }
    }
}

/// The output formats of `retry-policy lint`.
public enum LintFormat: String, Sendable, CaseIterable {
    case human, json, sarif, github, junit
}
