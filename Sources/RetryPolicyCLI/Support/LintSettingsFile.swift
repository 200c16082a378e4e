import Foundation
import RetryPolicyLint
import RetryPolicyYAML

/// Finds and reads `.retry-policy.yaml`.
enum LintSettingsFile {
    /// The settings at `explicitPath`, else the nearest `.retry-policy.yaml`
    /// from the working directory upward, else defaults.
    static func load(explicitPath: String?) throws(CommandFailure) -> LintConfiguration {
        guard let path = explicitPath ?? find() else { return LintConfiguration() }
        let text = try PolicyFiles.read(path)
        do {
            return try LintConfiguration(yaml: text, path: path)
        } catch {
            throw CommandFailure("invalid settings file:\n" + error.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    static func find() -> String? {
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL
        while true {
            let candidate = directory.appendingPathComponent(LintConfiguration.fileName).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }
}
