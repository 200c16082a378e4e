import ArgumentParser
import Foundation
import RetryPolicyCommandSupport
import RetryPolicyLanguageServer
import RetryPolicyYAML

struct LSPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsp",
        abstract: "Run the language server for policy files (Language Server Protocol over standard input and output).",
        discussion: """
            An editor starts `retry-policy lsp` and talks to it over standard input and output \
            (JSON-RPC with Content-Length headers, LSP 3.17). It reports the loader's and lint's \
            findings as you type (the same ids, locations and severities as `retry-policy lint`), \
            explains keys, rules, durations and error kinds on hover, completes keys, values, error \
            kinds, conditions and file names, offers the fixes of `lint --fix` and a comment that \
            disables a rule on a line, goes to the files a policy names, lists rules and endpoints, \
            and runs "simulate 503, 503, 200", "storm 1,000 clients" and a tests file's cases from \
            code lenses. docs/editors.md shows the setup for VS Code, Neovim, Helix and Zed.

            Files are read only inside the root: --root, else the git work tree enclosing the \
            workspace the editor opens. A message larger than --max-message-bytes is refused \
            with an error and skipped.
            """)

    @Option(help: ArgumentHelp("The largest message accepted, in bytes.", valueName: "bytes"))
    var maxMessageBytes: Int = MessageFramer.defaultMaximumMessageBytes

    @Option(help: ArgumentHelp("How long the text must rest after a change before it is checked (0: every change at once).", valueName: "milliseconds"))
    var debounce: Int = 150

    @OptionGroup var rootOptions: RootOptions

    func run() async throws {
        guard maxMessageBytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
        guard (0...10_000).contains(debounce) else { throw ValidationError("--debounce must be from 0 to 10000 milliseconds") }
        let root = rootOptions.root == nil ? nil : try rootOptions.policyRoot()
        let status = await StandardStreamTransport.run(
            root: root, maximumMessageBytes: maxMessageBytes, debounce: .milliseconds(debounce))
        throw ExitCode(status)
    }
}
