import RetryPolicyCore

/// What a YAML file found by walking a directory holds, told from its
/// top-level keys, so that a repository's other YAML (Compose, Kubernetes,
/// workflows, OpenAPI, Helm values) is not linted as a broken policy.
///
/// A file is a policy when it names the policy schema in a
/// `yaml-language-server` modeline, or when its top-level mapping holds a
/// key only the policy or stack format has (`rules`, `attempts`, `backoff`,
/// `extends`, `stack`...) and either `version` or nothing but policy keys.
/// `version` or `name` alone is not enough: Compose files have both. A tests
/// file holds `cases` or `sequences` and nothing but tests keys. Text that
/// does not parse is judged by the keys written at column 0, so a policy
/// with a syntax error is still linted (and its error reported).
package enum PolicyFileKind: Sendable, Hashable {
    case policy, testsFile, other

    /// The top-level keys of a tests file (`retry-policy test`).
    /// The top-level keys of a policy tests file, in the order its reader
    /// lists them (`PolicyTestParser` reads with this list).
    package static let testsFileKeys = ["policy", "cases", "sequences"]
    static let testsFileIdentifying: Set<String> = ["cases", "sequences"]
    static let policyFormatKeys = Set(PolicyKeys.policy).union(PolicyKeys.stack)
    /// Keys other formats commonly share with ours, which identify nothing.
    static let policyIdentifying = policyFormatKeys.subtracting(["version", "name", "description"])

    /// The kind of a file of `bytes` (read within the loader's limits).
    package static func of(bytes: [UInt8], path: String, limits: YAMLLimits = .default) -> PolicyFileKind {
        if let kind = modelineKind(bytes) { return kind }
        let keys: Set<String>
        if let parsed = try? YAMLParser.parse(bytes: bytes, path: path, limits: limits) {
            guard case .mapping(let entries, _) = parsed else { return .other }
            keys = Set(entries.map(\.key.value))
        } else {
            keys = columnZeroKeys(bytes)
        }
        return of(topLevelKeys: keys)
    }

    /// The kind of a file told from its first bytes only (a file too large
    /// to read whole): the modeline, else the keys written at column 0.
    package static func of(prefix bytes: [UInt8]) -> PolicyFileKind {
        if let kind = modelineKind(bytes) { return kind }
        return of(topLevelKeys: columnZeroKeys(bytes))
    }

    /// The kind of a file whose top-level mapping holds `keys`.
    package static func of(topLevelKeys keys: Set<String>) -> PolicyFileKind {
        if !keys.isDisjoint(with: policyIdentifying), keys.contains("version") || keys.isSubset(of: policyFormatKeys) {
            return .policy
        }
        if !keys.isDisjoint(with: testsFileIdentifying), keys.isSubset(of: Set(testsFileKeys)) { return .testsFile }
        return .other
    }

    /// What a `yaml-language-server` modeline naming one of the project's
    /// schemas says the file is.
    static func modelineKind(_ bytes: [UInt8]) -> PolicyFileKind? {
        guard let modeline = schemaModeline(bytes) else { return nil }
        if modeline.contains("retry-policy-tests") || modeline.contains("schema:policy-tests-file") { return .testsFile }
        if modeline.contains("retry-policy.schema") || modeline.contains("schema:policy-file") { return .policy }
        return nil
    }

    /// The `$schema=` value of a `# yaml-language-server:` comment among
    /// the first lines, lowercased.
    static func schemaModeline(_ bytes: [UInt8]) -> String? {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        for line in head.split(whereSeparator: \.isNewline).prefix(20) {
            let text = line.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
            guard text.hasPrefix("#") else { continue }
            guard let range = text.firstRange(of: "yaml-language-server:") else { continue }
            let rest = text[range.upperBound...]
            guard let schema = rest.firstRange(of: "$schema=") else { continue }
            return String(rest[schema.upperBound...]).lowercased()
        }
        return nil
    }

    /// The keys written as `key:` at the start of a line, for text the
    /// parser rejects.
    static func columnZeroKeys(_ bytes: [UInt8]) -> Set<String> {
        var keys: Set<String> = []
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard let first = line.first, first.isLetter || first == "_" || first == "\"" || first == "'" else { continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            var key = line[..<colon]
            if let quote = key.first, quote == "\"" || quote == "'", key.count >= 2, key.last == quote {
                key = key.dropFirst().dropLast()
            }
            keys.insert(String(key))
        }
        return keys
    }
}
