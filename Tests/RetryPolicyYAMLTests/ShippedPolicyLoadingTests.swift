import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Every policy in policies/ loads without a diagnostic and starts with the
/// schema modeline that editors use.
@Suite struct ShippedPolicyLoadingTests {
    static let names = ["ios-sdk.yaml", "android-sdk.yaml", "tmdb.yaml", "mobile-client.yaml", "timeout-budgets.yaml"]

    @Test func thePoliciesFolderHoldsExactlyTheShippedPolicies() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.path("policies"))
            .filter { $0.hasSuffix(".yaml") && !$0.hasSuffix(".tests.yaml") }
        #expect(Set(files) == Set(Self.names))
    }

    @Test(arguments: names) func loads(_ name: String) throws {
        let path = RepositoryFiles.path("policies/" + name)
        do {
            let policy = try PolicyLoader().loadPolicy(atPath: path)
            #expect(policy.name + ".yaml" == name)
            #expect(policy.location?.file == path)
        } catch {
            Issue.record("\(name) does not load:\n\(error)")
        }
    }

    @Test(arguments: names) func startsWithTheSchemaModeline(_ name: String) throws {
        let text = try RepositoryFiles.text("policies/" + name)
        #expect(text.hasPrefix("# yaml-language-server: $schema=../schema/retry-policy.schema.json\n"))
    }
}
