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
            var configuration = try LintConfiguration(yaml: text, path: path)
            // `include:` and `exclude:` are relative to the settings file's own directory.
            if case .success(let located) = root.locate(path), let slash = located.canonicalPath.lastIndex(of: "/") {
                configuration.directory = slash == located.canonicalPath.startIndex ? "/" : String(located.canonicalPath[..<slash])
            }
            return configuration
        } catch {
            throw CommandFailure("invalid settings file:\n" + error.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    static func find(root: PolicyRoot) -> String? {
        guard case .success(let start) = root.locate(".") else { return nil }
        var directory = start.canonicalPath
        while root.contains(canonicalPath: directory) {
            let candidate = (directory == "/" ? "" : directory) + "/" + LintConfiguration.fileName
            if root.exists(candidate) { return candidate }
            guard directory != root.path, let slash = directory.lastIndex(of: "/") else { return nil }
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        }
        return nil
    }
}
