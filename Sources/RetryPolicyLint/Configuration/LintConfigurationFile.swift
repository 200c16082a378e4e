import RetryPolicyCore
import RetryPolicyYAML

extension LintConfiguration {
    /// The settings file's name, searched from the working directory upward.
    public static let fileName = ".retry-policy.yaml"

    /// Reads `.retry-policy.yaml` text. Unknown keys, unknown rule ids and
    /// unknown severities are errors with their position: a typo must not
    /// silently leave a rule on.
    public init(yaml: String, path: String) throws(PolicyLoadError) {
        self.init(path: path)
        guard let root = try YAMLParser.parse(yaml, path: path) else { return }
        guard case .mapping(let entries, _) = root else {
            throw PolicyLoadError(diagnostics: [Diagnostic(
                id: "RP011", location: root.location, message: "expected a mapping with a `rules` key, found \(root.kindDescription)")])
        }
        var problems: [Diagnostic] = []
        let knownIDs = Set(LintCatalog.rules.map(\.id))
        for (key, value) in entries {
            guard key.value == "rules" else {
                problems.append(Diagnostic(id: "RP010", location: key.location, message: "unknown key '\(key.value)' in \(Self.fileName); expected 'rules'"))
                continue
            }
            guard case .mapping(let rules, _) = value else {
                problems.append(Diagnostic(id: "RP011", location: value.location, message: "expected a mapping of rule id to severity, found \(value.kindDescription)"))
                continue
            }
            for (id, setting) in rules {
                let ruleID = id.value.uppercased()
                if LoaderRule(rawValue: ruleID) != nil {
                    problems.append(Diagnostic(
                        id: "RP013", location: id.location,
                        message: "\(ruleID) is a loader check and cannot be turned off or changed: a file the loader rejects is not a policy",
                        suggestion: "settings apply to the RP1xx rules only"))
                    continue
                }
                guard knownIDs.contains(ruleID) else {
                    problems.append(Diagnostic(id: "RP013", location: id.location, message: "unknown rule '\(id.value)'", suggestion: "run `retry-policy lint --list-rules`"))
                    continue
                }
                guard case .scalar(let scalar) = setting else {
                    problems.append(Diagnostic(id: "RP011", location: setting.location, message: "expected error, warning, note or off, found \(setting.kindDescription)"))
                    continue
                }
                // `off` is a boolean false to YAML 1.1 readers; accept both spellings.
                let text = scalar.value.lowercased()
                if text == "off" || text == "false" {
                    severities[ruleID] = .some(nil)
                } else if let severity = LintSeverity(rawValue: text) {
                    severities[ruleID] = .some(severity)
                } else {
                    problems.append(Diagnostic(id: "RP013", location: scalar.location, message: "expected error, warning, note or off for \(ruleID), found '\(scalar.value)'"))
                }
            }
        }
        if !problems.isEmpty { throw PolicyLoadError(diagnostics: problems) }
    }
}
