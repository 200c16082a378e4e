import Foundation
import RetryPolicyCore
import Testing

@Suite("One version everywhere")
struct VersionTests {
    @Test("--version, SARIF's tool version and the newest CHANGELOG entry are RetryPolicyVersion.current")
    func oneVersion() throws {
        let version = try CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == RetryPolicyVersion.current + "\n")
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let sarif = try workspace.run(["lint", "--format", "sarif", "clean.yaml"])
        #expect(sarif.stdout.contains("\"version\": \"\(RetryPolicyVersion.current)\""), "\(sarif)")
        let changelog = try String(contentsOf: CLI.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(newest?.hasPrefix("## \(RetryPolicyVersion.current)") == true, "\(String(describing: newest))")
    }
}
