import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
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

            The error column shows the names of the policy's `platform`, else of every platform \
            its `errors:` section names; with neither, the error kinds themselves. --platform \
            chooses: ios and android (the standard names, which a policy's `errors:` may \
            override) or a platform the policy's `errors:` names; a kind without a name on that \
            platform shows as the kind.
              retry-policy table policies/ios-sdk.yaml --platform ios --platform android
            """)

    @Argument(help: "The policy file (- reads it from standard input).")
    var policy: String

    @Option(help: "Output format.")
    var format: TableFormat = .markdown

    @Option(help: ArgumentHelp("A platform whose error names to show (repeatable): ios, android, or one the policy's errors: name.", valueName: "name"))
    var platform: [String] = []

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let loaded = try PolicyFiles.loadPolicy(policy, root: rootOptions.policyRoot())
        try Self.checkPlatforms(platform, of: loaded)
        let table = ErrorTable(policy: loaded, platforms: platform.isEmpty ? nil : platform)
        switch format {
        case .markdown: StandardOutput.write(table.markdown)
        case .json: StandardOutput.write(table.json.rendered() + "\n")
        }
    }
}

extension TableCommand {
    /// The platforms whose names `policy` can show: the standard ones, its
    /// own, and those its `errors:` section names.
    static func knownPlatforms(of policy: Policy) -> [String] {
        Set(PlatformNames.standard.platforms + policy.errorNames.platforms + (policy.platform.map { [$0] } ?? [])).sorted()
    }

    /// Refuses a platform the table would show no name of, rather than
    /// printing the kinds under its heading.
    static func checkPlatforms(_ platforms: [String], of policy: Policy) throws(CommandFailure) {
        let known = knownPlatforms(of: policy)
        for platform in platforms where !known.contains(platform) {
            var message = "--platform: unknown platform '\(DisplayText.escaped(platform))'; known platforms: \(known.joined(separator: ", "))"
            if let suggestion = Suggestion.didYouMean(platform, among: known) { message += "; \(suggestion)" }
            throw CommandFailure(message)
        }
    }
}

enum TableFormat: String, ExpressibleByArgument, CaseIterable {
    case markdown, json
}
