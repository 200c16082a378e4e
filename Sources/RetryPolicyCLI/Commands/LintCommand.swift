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

            Exit status: 0 clean, 1 errors found (or warnings, with --strict), 2 usage or I/O error or no policy file found.
            """)

    @Argument(help: "Policy files or directories to check (default: the current directory); - reads one policy from standard input.")
    var paths: [String] = []

    @Option(help: "Output format (default: github when GITHUB_ACTIONS is set, else human).")
    var format: LintFormat?

    @Flag(help: "Fail (exit 1) on warnings too, not only on errors.")
    var strict = false

    @Option(help: ArgumentHelp("Print the explanation of one rule and exit.", valueName: "RULE-ID"))
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
        let root = try rootOptions.policyRoot()
        let configuration = try LintSettingsFile.load(explicitPath: config, root: root)
        let run = LintRun(root: root, configuration: configuration)
        let searched = paths.isEmpty ? ["."] : paths
        let report: LintReport
        do {
            report = try run.lint(paths: searched, standardInput: { StandardInput.bytes() })
        } catch {
            throw CommandFailure(error.description)
        }
        // A CI job pointed at the wrong folder must not pass for ever.
        if report.files.isEmpty { throw CommandFailure(Self.nothingFound(in: searched, report: report)) }
        let chosen = format ?? (ProcessInfo.processInfo.environment["GITHUB_ACTIONS"].map { !$0.isEmpty && $0 != "false" } == true ? .github : .human)
        let colour = StandardOutput.isTerminal && !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        StandardOutput.write(run.render(report, format: chosen, colour: colour, strict: strict))
        if report.fails(strict: strict) { throw ExitCodeError(status: ExitStatus.findings) }
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

/// `--explain` and `--list-rules`.
enum RuleExplanation {
    static func text(for id: String) throws(CommandFailure) -> String {
        let wanted = id.uppercased()
        if let rule = LintCatalog.rule(id: wanted) {
            return "\(rule.id) \(rule.name) (default severity: \(rule.defaultSeverity))\n\n\(rule.summary)\n\n\(rule.explanation)\n"
        }
        if let loaderRule = LoaderRule(rawValue: wanted) {
            return "\(loaderRule.id) \(loaderRule.title) (severity: error, reported by the loader)\n\n\(loaderRule.explanation)\n"
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
