import Foundation
import RetryPolicyLint
import RetryPolicyYAML
import RetryPolicyCommandSupport

/// Finds and reads `.retry-policy.yaml`, inside the root only.
enum LintSettingsFile {
    /// The settings at `explicitPath`, else the nearest `.retry-policy.yaml`
    /// from the working directory upward to the root, else defaults.
    static func load(explicitPath: String?, root: PolicyRoot) throws(CommandFailure) -> LintConfiguration {
        guard let path = explicitPath ?? find(root: root) else { return LintConfiguration() }
        let text = try PolicyFiles.read(path, root: root)
        do {
            return try LintSettingsDiscovery.configuration(text: text, path: path, root: root)
        } catch {
            throw CommandFailure("invalid settings file:\n" + error.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    static func find(root: PolicyRoot) -> String? {
        LintSettingsDiscovery.settingsPath(from: ".", root: root)
    }
}
