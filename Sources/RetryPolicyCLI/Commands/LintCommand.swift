import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check policy files for structural and semantic problems.",
        discussion: """
            Reports everything the loader rejects (RP0xx) and the semantic rules (RP1xx): shadowed \
            rules, uncovered inputs, attempts that cannot fit the deadline, missing jitter, retried \
            client errors, unsafe retries of non-idempotent methods, retry amplification across a \
            stack, parity mismatches and more. `--list-rules` lists them; `--explain RP101` explains one.

            Directories are searched recursively for *.yaml and *.yml files; *.tests.yaml files \
            (checked by `retry-policy test`) and dotfiles are skipped.

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

            Exit status: 0 clean, 1 errors found (or warnings, with --strict), 2 usage or I/O error.
            """)

    @Argument(help: "Policy files or directories to check (default: the current directory).")
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

    func run() throws {
        if let explain {
            StandardOutput.write(try RuleExplanation.text(for: explain))
            return
        }
        if listRules {
            StandardOutput.write(RuleExplanation.listing())
            return
        }
        let configuration = try LintSettingsFile.load(explicitPath: config)
        let files = try PolicyFiles.policyFiles(in: paths.isEmpty ? ["."] : paths)
        let linter = PolicyLinter(configuration: configuration)
        var findings: [LintFinding] = []
        for file in files {
            findings += try FileLinter(linter: linter).lint(file: file)
        }
        let report = LintReport(files: files, findings: findings)
        let chosen = format ?? (ProcessInfo.processInfo.environment["GITHUB_ACTIONS"].map { !$0.isEmpty && $0 != "false" } == true ? .github : .human)
        let output: String
        switch chosen {
        case .human:
            let colour = StandardOutput.isTerminal && !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            output = HumanFormatter(colour: colour) { path in
                FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
            }.render(report)
        case .json: output = JSONFormatter.render(report)
        case .sarif: output = SARIFFormatter.render(report)
        case .github: output = GitHubFormatter.render(report)
        case .junit: output = JUnitFormatter(strict: strict).render(report)
        }
        StandardOutput.write(output)
        if report.fails(strict: strict) { throw ExitCodeError(status: ExitStatus.findings) }
    }
}

extension LintFormat: ExpressibleByArgument {}

/// Lints one file: loads it, loads what it refers to (parity partners,
/// stack layers), runs the rules and applies suppressions and settings.
struct FileLinter {
    var linter: PolicyLinter

    func lint(file: String) throws(CommandFailure) -> [LintFinding] {
        let source = try PolicyFiles.read(file)
        let loader = PolicyLoader()
        var findings: [LintFinding] = []
        do {
            switch try loader.loadDocument(yaml: source, path: file) {
            case .policy(let policy):
                var parity: [String: Policy] = [:]
                let parityLocation = keyLocation("parity", in: source, file: file)
                for reference in policy.parity {
                    let path = PolicyFiles.resolve(reference, relativeTo: file)
                    do {
                        parity[reference] = try loader.loadPolicy(atPath: path)
                    } catch {
                        findings.append(LintFinding(
                            id: "RP115", severity: .error,
                            location: parityLocation ?? policy.location ?? SourceLocation(file: file, line: 1, column: 1),
                            message: "parity policy \(reference) cannot be loaded: \(error.diagnostics.first?.description ?? "unknown problem")"))
                    }
                }
                let context = LintContext(file: file, parityPolicies: parity, parityLocation: parityLocation)
                findings += linter.check(policy: policy, context: context)
            case .stack(var stack):
                // Point the amplification finding at the `stack:` list rather than the top of the file.
                if let stackLocation = keyLocation("stack", in: source, file: file) { stack.location = stackLocation }
                var layers: [(layer: PolicyStack.Layer, policy: Policy)] = []
                for layer in stack.layers {
                    let path = PolicyFiles.resolve(layer.policyPath, relativeTo: file)
                    do {
                        layers.append((layer, try loader.loadPolicy(atPath: path)))
                    } catch {
                        findings.append(LintFinding(
                            id: "RP113", severity: .error,
                            location: layer.location ?? stack.location ?? SourceLocation(file: file, line: 1, column: 1),
                            message: "layer \(layer.name): policy \(layer.policyPath) cannot be loaded: \(error.diagnostics.first?.description ?? "unknown problem")"))
                    }
                }
                findings += linter.check(stack: stack, layers: layers, file: file)
            }
        } catch {
            findings += error.diagnostics.map(LintFinding.init)
        }
        return linter.finalize(findings, source: source, file: file)
    }

    /// Where a top-level `key:` is written, found in the text because the
    /// model keeps no location for plain lists.
    func keyLocation(_ key: String, in source: String, file: String) -> SourceLocation? {
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.hasPrefix(key + ":") {
            return SourceLocation(file: file, line: index + 1, column: 1)
        }
        return nil
    }
}

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
        throw CommandFailure("unknown rule '\(id)'; known rules: \(known)")
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
