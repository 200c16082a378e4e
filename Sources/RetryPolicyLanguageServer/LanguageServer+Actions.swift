import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicySimulation
import RetryPolicyYAML

/// The commands code lenses run through `workspace/executeCommand`.
enum ServerCommand: String, CaseIterable, Sendable {
    case simulate = "retry-policy.simulate"
    case storm = "retry-policy.storm"
    case runTests = "retry-policy.runTests"
}

/// Quick fixes, code lenses and the commands they run.
extension LanguageServer {
    // MARK: Code actions

    /// For each finding in the range: its fix (the edit `lint --fix`
    /// applies), and a comment that disables its rule on that line.
    func codeActions(_ params: LSPValue) -> LSPValue {
        guard let document = document(params), let range = LSPRange(params["range"]), let path = document.path else { return .array([]) }
        var actions: [LSPValue] = []
        for finding in document.result.findings where finding.location.file == path {
            let underlined = document.text.wordRange(line: finding.location.line, column: finding.location.column)
            guard underlined.start.line >= range.start.line && underlined.start.line <= range.end.line else { continue }
            let diagnostic = finding.lspDiagnostic(in: document.text, path: path, uri: Self.uri(ofPath:))
            if let fix = finding.fix, fix.edits.allSatisfy({ $0.file == path }) {
                let edits: [LSPValue] = fix.edits.map { edit in
                    let start = document.text.position(line: edit.start.line, column: edit.start.column)
                    let end = document.text.position(line: edit.end.line, column: edit.end.column)
                    return ["range": LSPRange(start: start, end: end).json, "newText": .string(edit.replacement)]
                }
                actions.append([
                    "title": .string("\(finding.id): \(fix.description)"), "kind": "quickfix", "isPreferred": true,
                    "diagnostics": [diagnostic],
                    "edit": ["changes": .object([document.uri: .array(edits)])],
                ])
            }
            // Loader findings (RP0xx) cannot be silenced.
            if LoaderRule(rawValue: finding.id) == nil, let edit = suppression(for: finding, in: document) {
                actions.append([
                    "title": .string("Disable \(finding.id) on this line"), "kind": "quickfix",
                    "diagnostics": [diagnostic],
                    "edit": ["changes": .object([document.uri: [edit]])],
                ])
            }
        }
        return .array(actions)
    }

    /// `# retry-policy: disable=ID` on its own line above the finding's,
    /// indented like it: the documented comment (`Suppressions`).
    func suppression(for finding: LintFinding, in document: OpenDocument) -> LSPValue? {
        let index = finding.location.line - 1
        guard index >= 0, index < document.text.lines.count else { return nil }
        let line = document.text.lines[index]
        let indent = String(line.prefix { $0 == " " })
        let point = LSPPosition(line: index, character: 0)
        return ["range": LSPRange(start: point, end: point).json, "newText": .string("\(indent)# retry-policy: disable=\(finding.id)\n")]
    }

    // MARK: Code lenses

    static let simulatedResponses = "503,503,200"
    static let stormClients = 1_000

    func codeLenses(_ params: LSPValue) -> LSPValue {
        guard let document = document(params) else { return .array([]) }
        let top = LSPRange(start: LSPPosition(line: 0, character: 0), end: LSPPosition(line: 0, character: 0)).json
        let arguments: LSPValue = [.string(document.uri)]
        switch document.kind {
        case .policy where !isStack(document):
            return [
                ["range": top, "command": ["title": .string("simulate \(Self.simulatedResponses.replacingCommas)"),
                    "command": .string(ServerCommand.simulate.rawValue), "arguments": arguments]],
                ["range": top, "command": ["title": "storm 1,000 clients",
                    "command": .string(ServerCommand.storm.rawValue), "arguments": arguments]],
            ]
        case .testsFile:
            return [["range": top, "command": ["title": "run tests", "command": .string(ServerCommand.runTests.rawValue), "arguments": arguments]]]
        default:
            return .array([])
        }
    }

    /// Runs a lens's command; the result is shown as a message and
    /// returned. A tests run's failures become diagnostics on the cases.
    func executeCommand(_ params: LSPValue) throws -> LSPValue {
        guard let name = params["command"]?.string, let command = ServerCommand(rawValue: name) else {
            throw JSONRPCError.invalidParams("unknown command; known: " + ServerCommand.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard let uri = params["arguments"]?.array?.first?.string, var document = documents[uri], document.path != nil else {
            throw JSONRPCError.invalidParams("the command's argument must be the URI of an open document")
        }
        let text: String
        switch command {
        case .simulate, .storm:
            guard let policy = document.result.policy else {
                throw JSONRPCError.invalidParams("the policy does not load: fix its errors first")
            }
            if command == .simulate {
                let script = try! ScriptedResponse.parseList(Self.simulatedResponses).get()
                text = RequestTimeline.simulate(policy: policy, responses: script, seed: 1)
                    .text(policy: policy, path: displayName(document), seed: 1)
            } else {
                let configuration = OutageStorm.Configuration(
                    clients: Self.stormClients, outage: .seconds(10), outageResponse: try! ScriptedResponse.parse("503").get())
                text = StormReport.run(policy: policy, configuration: configuration).text
            }
        case .runTests:
            guard let suite = document.result.suite, let policy = document.result.policy else {
                throw JSONRPCError.invalidParams("the tests file or its policy does not load: fix their errors first")
            }
            let result = PolicyTestRunner.run(suite, policy: policy)
            document.testFailures = result.failures.map { failure in
                LintFinding(id: "test", severity: .error, location: failure.location, message: "case '\(failure.name)' failed: \(failure.mismatches.map(\.description).joined(separator: "; ")) (actual: \(failure.actual))")
            }
            documents[uri] = document
            publish(document, findings: document.result.findings + document.testFailures)
            text = PolicyTestReport(fileCount: 1, results: [result], invalid: []).text
        }
        // Locations in the report are named from the root, as the CLI run from there names them.
        let shown = document.path.map { text.replacingOccurrences(of: $0, with: displayName(document)) } ?? text
        send(.notification("window/showMessage", ["type": 3, "message": .string(shown)]))
        return .string(shown)
    }

    func displayName(_ document: OpenDocument) -> String {
        guard let root, let path = document.path else { return "policy" }
        return path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : path
    }
}

extension String {
    var replacingCommas: String { split(separator: ",").joined(separator: ", ") }
}
