import RetryPolicyCore
import RetryPolicyYAML

extension LintConfiguration {
    /// The settings file's name, searched from the working directory upward.
    package static let fileName = ".retry-policy.yaml"

    /// Reads `.retry-policy.yaml` text. Unknown keys, unknown rule ids and
    /// unknown severities are errors with their position: a typo must not
    /// silently leave a rule on.
    public init(yaml: String, path: String) throws(PolicyLoadError) {
        self.init(path: path)
        guard let root = try YAMLParser.parse(yaml, path: path) else { return }
        // The loader's reader, so settings problems read like a policy's.
        var reader = FieldReader(maximum: .max)
        if let fields = reader.fields(root, at: "", allowed: ["rules", "include", "exclude"],
                                      what: "a mapping with 'rules', 'include' or 'exclude'") {
            if let value = fields["rules"] { readRules(value, into: &reader) }
            if let value = fields["include"] { include = Self.readGlobs(value, key: "include", into: &reader) }
            if let value = fields["exclude"] { exclude = Self.readGlobs(value, key: "exclude", into: &reader) }
        }
        if reader.hasProblems { throw PolicyLoadError(diagnostics: reader.diagnostics) }
    }

    /// The most patterns one list may hold.
    package static let maximumPatterns = 1000

    /// A list of path patterns; each bad one is reported where it is written.
    private static func readGlobs(_ node: YAMLNode, key: String, into reader: inout FieldReader) -> [PathGlob] {
        guard case .sequence(let items, _) = node else {
            reader.expected("a list of path patterns", for: key, found: node)
            return []
        }
        var globs: [PathGlob] = []
        for (index, item) in items.enumerated() {
            guard index < maximumPatterns else {
                reader.report(.invalidValue, at: item.location, "more than \(maximumPatterns) patterns in '\(key)'")
                break
            }
            // A pattern is a string: `3` or `true` is more likely a slip than a file name.
            guard case .scalar(let scalar) = item, case .string = scalar.resolved else {
                reader.expected("a path pattern (a string)", for: "\(key)[\(index)]", found: item)
                continue
            }
            do {
                globs.append(try PathGlob(scalar.value))
            } catch {
                reader.report(.invalidValue, at: scalar.location, "invalid pattern in '\(key)': \(YAMLScalar.abbreviated(error.message))",
                              suggestion: error.suggestion)
            }
        }
        return globs
    }

    static let settingWords = ["error", "warning", "note", "off"]

    private mutating func readRules(_ node: YAMLNode, into reader: inout FieldReader) {
        guard case .mapping(let rules, _) = node else {
            reader.expected("a mapping of rule id to severity", for: "rules", found: node)
            return
        }
        let knownIDs = LintCatalog.rules.map(\.id)
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
                reader.report(
                    .invalidValue, at: id.location, "unknown rule '\(YAMLScalar.abbreviated(id.value))'",
                    suggestion: "run `retry-policy lint --list-rules`")
                continue
            }
            let keyPath = "rules.\(ruleID)"
            guard case .scalar(let scalar) = setting else {
                reader.expected(Self.alternativesText, for: keyPath, found: setting)
                continue
            }
            // `off` is a boolean false to YAML 1.1 readers; accept both spellings.
            let text = scalar.value.lowercased()
            if text == "off" || text == "false" {
                severities[ruleID] = .some(nil)
            } else if let severity = Diagnostic.Severity(rawValue: text) {
                severities[ruleID] = .some(severity)
            } else {
                reader.expected(
                    Self.alternativesText, for: keyPath, found: setting, rule: .invalidValue,
                    suggestion: Suggestion.didYouMean(scalar.value, among: Self.settingWords))
            }
        }
    }

    static var alternativesText: String { FieldReader.alternatives(settingWords) }
}
