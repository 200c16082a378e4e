import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyCommandSupport

struct TableCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "table",
        abstract: "Print the status / transport -> error -> retry table of a policy.",
        discussion: """
            The table has the shape of an SDK's "Error Taxonomy Mapping" documentation: HTTP status \
            (or transport failure), the error it maps to with each platform's name, whether it is \
            retried, and why. Generated from the policy, so documentation cannot drift from \
            behaviour. Paste the Markdown into docs; use JSON for tools.

            Platforms default to the policy's `platform`, else ios and android:
              retry-policy table policies/ios-sdk.yaml --platform ios --platform android
            """)

    @Argument(help: "The policy file (- reads it from standard input).")
    var policy: String

    @Option(help: "Output format.")
    var format: TableFormat = .markdown

    @Option(help: ArgumentHelp("A platform whose error names to show (repeatable).", valueName: "name"))
    var platform: [String] = []

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let loaded = try PolicyFiles.loadPolicy(policy, root: rootOptions.policyRoot())
        let table = ErrorTable(policy: loaded, platforms: platform.isEmpty ? nil : platform)
        switch format {
        case .markdown: StandardOutput.write(table.markdown)
        case .json: StandardOutput.write(table.json.rendered() + "\n")
        }
    }
}

enum TableFormat: String, ExpressibleByArgument, CaseIterable {
    case markdown, json
}
