import RetryPolicyCore
import RetryPolicyYAML

/// Project settings for lint, read from `.retry-policy.yaml` (found from the
/// working directory upward):
///
///     rules:
///       RP107: error     # raise
///       RP114: off       # silence everywhere
public struct LintConfiguration: Hashable, Sendable {
    /// Rule id -> new severity, or `nil` to turn the rule off.
    public var severities: [String: LintSeverity?]
    /// The file the settings came from, for messages.
    public var path: String?

    public init(severities: [String: LintSeverity?] = [:], path: String? = nil) {
        self.severities = severities
        self.path = path
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
