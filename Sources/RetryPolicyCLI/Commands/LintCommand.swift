import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import RetryPolicyCommandSupport

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check policy files for structural and semantic problems.",
        discussion: """
            Reports everything the loader rejects (RP0xx) and the semantic rules (RP1xx): shadowed \
            rules, uncovered inputs, attempts that cannot fit the deadline, missing jitter, retried \
            client errors, unsafe retries of non-idempotent methods, retry amplification across a \
            stack, parity mismatches and more. `--list-rules` lists them; `--explain RP101` explains one.

            Directories are searched recursively for *.yaml and *.yml files (dotfiles and \
            dot-folders skipped); a file found this way is linted when its content is a policy or \
            stack file: its top-level mapping holds a key only the policy format has (rules, \
            attempts, backoff, extends, stack...) with version, or a yaml-language-server modeline \
            names the policy schema. Other YAML (Compose, Kubernetes, workflows, OpenAPI) and tests \
            files (*.tests.yaml, run by `retry-policy test`) are skipped; the summary counts the other YAML. \
            A file named on the command line is always linted as a policy; a tests file named there \
            is an error (exit 1) saying to run `retry-policy test`. Finding no policy at all is exit 2.

            In .retry-policy.yaml, include: and exclude: list path patterns (relative to the \
            settings file's directory; ** any depth, * and ? within a name; a pattern also covers \
            everything under a directory it matches) that select the files a walk lints:
                include: [services/**/retry]
                exclude: [vendor, "**/testdata"]

            Severities can be changed per rule in .retry-policy.yaml, found from the working \
            directory upward:
                rules:
                  RP107: error
                  RP114: off
            A comment silences a rule on its line (or, alone on a line, on the next line):
                # retry-policy: disable=RP107
            or in the whole file:
                # retry-policy: disable-file=RP107
            A suppression that silences nothing is reported (RP116).

            Files are read only inside the root: the enclosing git work tree, else the working \
            directory, or --root DIR. A path that leaves it (absolute, '..', or a symbolic link \
            leading out), anything in .git, and special files are refused with a located error and \
            never opened, so linting an untrusted pull request cannot print a file of the machine. \
            Symbolic links to directories are not followed.

            Paths in every format are named from the root (sub/dir/bad.yaml, whatever the working \
            directory), so that GitHub annotations and SARIF results attach to the repository's files; \
            SARIF names the root %SRCROOT%.

            --fix applies the fixes of findings whose resolution is mechanical (a misspelt key or \
            value with a did-you-mean, jitter: none, max below initial, an unused suppression), \
            editing only the text each one replaces, then lints again and reports what remains. \
            --diff prints those edits as a unified diff and writes nothing. The JSON and SARIF \
            reports carry the same edits (fix, fixes).

            Exit status: 0 clean, 1 a finding at or above the fail level (default error; --strict or \
            --fail-level warning: warnings too), 2 usage or I/O error or no policy file found. With \
            --diff: 0 nothing to fix, 1 a diff was printed.
            """)

    @Argument(help: "Policy files or directories to check (default: the current directory); - reads one policy from standard input.")
    var paths: [String] = []

    @Option(help: "Output format (default: github when GITHUB_ACTIONS is set, else human).")
    var format: LintFormat?

    @Flag(help: "Fail (exit 1) on warnings too, not only on errors (--fail-level warning).")
    var strict = false

    @Option(help: ArgumentHelp("The least severity that fails the run (exit 1): error (default), warning or note.", valueName: "LEVEL"))
    var failLevel: Diagnostic.Severity?

    @Flag(help: "Print only the findings: no summary line (human and github formats).")
    var quiet = false

    @Flag(help: "Apply the fixes of mechanically fixable findings to the files, then report what remains.")
    var fix = false

    @Flag(help: "Print the fixes as a unified diff instead of the report; write nothing.")
    var diff = false

    @Option(help: ArgumentHelp("Print the explanation of one rule (its id or name) and exit.", valueName: "RULE"))
    var explain: String?

    @Flag(help: "List every rule with its id, default severity and summary, and exit.")
    var listRules = false

    @Option(help: "Settings file to use instead of searching for .retry-policy.yaml.")
    var config: String?

    @Flag(help: "Never colour human output, even on a terminal.")
    var noColor = false

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        if let explain {
            StandardOutput.write(try RuleExplanation.text(for: explain))
            return
        }
        if listRules {
            StandardOutput.write(RuleExplanation.listing())
            return
        }
        if fix && diff { throw CommandFailure("--fix and --diff cannot be used together: --diff shows what --fix would write") }
        let searched = paths.isEmpty ? ["."] : paths
        if (fix || diff) && searched.contains("-") {
            throw CommandFailure("--\(fix ? "fix" : "diff") edits files and cannot take standard input (-); name the file")
        }
        let root = try rootOptions.policyRoot()
        let configuration = try LintSettingsFile.load(explicitPath: config, root: root)
        let run = LintRun(root: root, configuration: configuration)
        var report = try lint(searched, run: run)
        let failLevel = min(self.failLevel ?? .error, strict ? .warning : .error)
        if diff {
            let plan = FixPlan(findings: report.findings) { Self.currentBytes(of: $0, root: root) }
            let paths = RootRelativePaths(root: root)
            StandardOutput.write(plan.changes.map { $0.diff(named: paths.relative($0.file)) }.joined())
            reportSkipped(plan, paths: paths)
            if !plan.changes.isEmpty { throw ExitCodeError(status: ExitStatus.findings) }
            return
        }
        if fix {
            let plan = FixPlan(findings: report.findings) { Self.currentBytes(of: $0, root: root) }
            // Every file is checked before the first is written.
            for change in plan.changes { try OutputFiles.check(change.file, root: root, force: true) }
            for change in plan.changes {
                try OutputFiles.write(String(decoding: change.fixed, as: UTF8.self), to: change.file, root: root, force: true)
            }
            let paths = RootRelativePaths(root: root)
            if !quiet {
                StandardError.write("fixed \(plural(plan.fixCount, "problem")) in \(plural(plan.changes.count, "file"))\n")
            }
            reportSkipped(plan, paths: paths)
            if !plan.changes.isEmpty { report = try lint(searched, run: run) }
        }
        let chosen = format ?? (ProcessInfo.processInfo.environment["GITHUB_ACTIONS"].map { !$0.isEmpty && $0 != "false" } == true ? .github : .human)
        let colour = StandardOutput.isTerminal && !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        StandardOutput.write(run.render(run.rootRelative(report), format: chosen, colour: colour, failLevel: failLevel, quiet: quiet, pathsFromRoot: true))
        if report.fails(at: failLevel) { throw ExitCodeError(status: ExitStatus.findings) }
    }

    /// Lints `searched`; finding no policy at all is a usage error.
    private func lint(_ searched: [String], run: LintRun) throws -> LintReport {
        let report: LintReport
        do {
            report = try run.lint(paths: searched, standardInput: { StandardInput.bytes() })
        } catch {
            throw CommandFailure(error.description)
        }
        // A CI job pointed at the wrong folder must not pass for ever.
        if report.files.isEmpty { throw CommandFailure(Self.nothingFound(in: searched, report: report)) }
        return report
    }

    /// A file's bytes as they are now, read as lint reads it.
    static func currentBytes(of path: String, root: PolicyRoot) -> [UInt8]? {
        guard case .success(let bytes) = root.readFile(path) else { return nil }
        return bytes
    }

    /// One line on standard error per fix left out, and why.
    private func reportSkipped(_ plan: FixPlan, paths: RootRelativePaths) {
        for (finding, reason) in plan.skipped {
            var location = finding.location
            location.file = paths.relative(location.file)
            StandardError.write("\(DisplayText.escaped(location.description)): \(finding.id): fix not applied: \(reason)\n")
        }
    }

    /// The message when no policy was found: where, and what was seen instead.
    static func nothingFound(in paths: [String], report: LintReport) -> String {
        let skipped = report.skippedText()
        return "no policy files found in \(paths.map { DisplayText.escaped($0) }.joined(separator: ", ")) "
            + "(searched \(plural(report.searched, "YAML file"))\(skipped.isEmpty ? "" : "; skipped " + skipped)); "
            + "name the files, or set include: in \(LintConfiguration.fileName)"
    }
}

extension LintFormat: ExpressibleByArgument {}

extension Diagnostic.Severity: ExpressibleByArgument {}

/// `--explain` and `--list-rules`.
enum RuleExplanation {
    /// `id` is a rule's id (`RP107`) or its name as lint prints it
    /// (`retry-without-jitter`), in any case.
    static func text(for id: String) throws(CommandFailure) -> String {
        var wanted = id.uppercased()
        if let named = LintCatalog.rules.first(where: { $0.name.lowercased() == id.lowercased() }) { wanted = named.id }
        if let rule = LintCatalog.rule(id: wanted) {
            return "\(rule.id) \(rule.name) (default severity: \(rule.defaultSeverity))\n\n\(rule.summary)\n\n\(rule.explanation)\n"
        }
        if let loaderRule = LoaderRule(rawValue: wanted) {
            return "\(loaderRule.id) \(loaderRule.title) (severity: error, reported by the loader)\n\n\(loaderRule.explanation)\n"
        }
        let names = LintCatalog.rules.map(\.name) + LintCatalog.rules.map(\.id) + LoaderRule.allCases.map(\.id)
        if let close = Suggestion.closest(to: id, among: names) {
            throw CommandFailure(
                "unknown rule '\(DisplayText.escaped(id))'; did you mean '\(close)'? (`--list-rules` lists every rule)")
        }
        let known = (LoaderRule.allCases.map(\.id) + LintCatalog.rules.map(\.id)).joined(separator: ", ")
        throw CommandFailure("unknown rule '\(DisplayText.escaped(id))'; known rules: \(known)")
    }

    static func listing() -> String {
        var lines: [String] = []
        for rule in LoaderRule.allCases { lines.append("\(rule.id)  error    \(LintCatalog.loaderRule(id: rule.id).summary)") }
        for rule in LintCatalog.rules {
            lines.append("\(rule.id)  \(rule.defaultSeverity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0))  \(rule.summary)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
