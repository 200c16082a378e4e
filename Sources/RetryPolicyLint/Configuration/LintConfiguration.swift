import RetryPolicyCore
import RetryPolicyYAML

/// Project settings for lint, read from `.retry-policy.yaml` (found from the
/// working directory upward):
///
///     rules:
///       RP107: error     # raise
///       RP114: off       # silence everywhere
///     include: [services/**/retry/*.yaml]
///     exclude: [vendor, "**/testdata"]
public struct LintConfiguration: Hashable, Sendable {
    /// Rule id -> new severity, or `nil` to turn the rule off.
    package var severities: [String: Diagnostic.Severity?]
    /// The file the settings came from, for messages.
    public var path: String?
    /// When not empty, a walked file is linted only if one of these
    /// matches it (relative to `directory`).
    public var include: [PathGlob]
    /// A walked file one of these matches is not linted.
    public var exclude: [PathGlob]
    /// The canonical directory the patterns are relative to: the settings
    /// file's.
    public var directory: String?

    public init(
        severities: [String: Diagnostic.Severity?] = [:], path: String? = nil, include: [PathGlob] = [], exclude: [PathGlob] = [],
        directory: String? = nil
    ) {
        self.severities = severities
        self.path = path
        self.include = include
        self.exclude = exclude
        self.directory = directory
    }

    /// Whether a walked file at `canonicalPath` is selected by `include:`
    /// and `exclude:`. A file outside `directory` is not filtered.
    public func selects(canonicalPath: String) -> Bool {
        guard let directory, !include.isEmpty || !exclude.isEmpty else { return true }
        let prefix = directory == "/" ? "/" : directory + "/"
        guard canonicalPath.hasPrefix(prefix) else { return true }
        let relative = String(canonicalPath.dropFirst(prefix.count))
        if !include.isEmpty, !include.contains(where: { $0.matches(relative) }) { return false }
        return !exclude.contains { $0.matches(relative) }
    }

    /// The findings with severities changed and disabled rules removed.
    public func apply(to findings: [LintFinding]) -> [LintFinding] {
        findings.compactMap { finding in
            // Loader problems (RP0xx) are the format, not style: never changed.
            guard LoaderRule(rawValue: finding.id) == nil, let override = severities[finding.id] else { return finding }
            guard let severity = override else { return nil }
            var changed = finding
            changed.severity = severity
            return changed
        }
    }
}
