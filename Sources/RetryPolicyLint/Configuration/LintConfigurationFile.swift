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
                id: LoaderRule.wrongType.id, location: root.location, message: "expected a mapping with a `rules` key, found \(root.kindDescription)")])
        }
        var reader = FieldReader(maximum: .max)
        let knownIDs = Set(LintCatalog.rules.map(\.id))
        for (key, value) in entries {
            guard key.value == "rules" else {
                reader.report(.unknownKey, at: key.location, "unknown key '\(key.value)' in \(Self.fileName); expected 'rules'")
                continue
            }
            guard case .mapping(let rules, _) = value else {
                reader.report(.wrongType, at: value.location, "expected a mapping of rule id to severity, found \(value.kindDescription)")
                continue
            }
            for (id, setting) in rules {
                let ruleID = id.value.uppercased()
                if LoaderRule(rawValue: ruleID) != nil {
                    reader.report(
                        .invalidValue, at: id.location,
                        "\(ruleID) is a loader check and cannot be turned off or changed: a file the loader rejects is not a policy",
                        suggestion: "settings apply to the RP1xx rules only")
                    continue
                }
                guard knownIDs.contains(ruleID) else {
                    reader.report(.invalidValue, at: id.location, "unknown rule '\(id.value)'", suggestion: "run `retry-policy lint --list-rules`")
                    continue
                }
                guard case .scalar(let scalar) = setting else {
                    reader.report(.wrongType, at: setting.location, "expected error, warning, note or off, found \(setting.kindDescription)")
                    continue
                }
                // `off` is a boolean false to YAML 1.1 readers; accept both spellings.
                let text = scalar.value.lowercased()
                if text == "off" || text == "false" {
                    severities[ruleID] = .some(nil)
                } else if let severity = LintSeverity(rawValue: text) {
                    severities[ruleID] = .some(severity)
                } else {
                    reader.report(.invalidValue, at: scalar.location, "expected error, warning, note or off for \(ruleID), found '\(scalar.value)'")
                }
            }
        }
        if reader.hasProblems { throw PolicyLoadError(diagnostics: reader.diagnostics) }
    }
}
