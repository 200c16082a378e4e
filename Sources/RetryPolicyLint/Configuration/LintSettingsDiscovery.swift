import RetryPolicyCore
import RetryPolicyYAML

/// Where `.retry-policy.yaml` is found and how its text becomes the
/// settings: the one discovery `retry-policy lint` and the language server
/// share, inside the root only.
public enum LintSettingsDiscovery {
    /// The nearest `.retry-policy.yaml` from `directory` (a path inside the
    /// root, `.` for the working directory) upward to the root, `nil` when
    /// there is none.
    public static func settingsPath(from directory: String, root: PolicyRoot) -> String? {
        guard case .success(let start) = root.locate(directory) else { return nil }
        var directory = start.canonicalPath
        while root.contains(canonicalPath: directory) {
            let candidate = (directory == "/" ? "" : directory) + "/" + LintConfiguration.fileName
            if root.exists(candidate) { return candidate }
            guard directory != root.path, let slash = directory.lastIndex(of: "/") else { return nil }
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        }
        return nil
    }

    /// The settings written in `text`, the file at `path`: `include:` and
    /// `exclude:` are relative to that file's own directory.
    public static func configuration(text: String, path: String, root: PolicyRoot) throws(PolicyLoadError) -> LintConfiguration {
        var configuration = try LintConfiguration(yaml: text, path: path)
        if case .success(let located) = root.locate(path), let slash = located.canonicalPath.lastIndex(of: "/") {
            configuration.directory = slash == located.canonicalPath.startIndex ? "/" : String(located.canonicalPath[..<slash])
        }
        return configuration
    }

    /// Whether `name` (a path or a file name) is a settings file.
    public static func isSettingsFile(_ name: String) -> Bool {
        name == LintConfiguration.fileName || name.hasSuffix("/" + LintConfiguration.fileName)
    }
}
