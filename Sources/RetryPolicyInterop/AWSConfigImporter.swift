import RetryPolicyCore
import RetryPolicyYAML

/// AWS shared config file (`~/.aws/config`): `retry_mode` and
/// `max_attempts` of one profile ("AWS SDKs and Tools reference guide,
/// Retry behavior").
enum AWSConfigImporter {
    struct Entry {
        var value: String
        var location: SourceLocation
    }

    struct Section {
        var location: SourceLocation
        var entries: [String: Entry]
    }

    /// The file's sections (`[default]`, `[profile NAME]`, `[NAME]`), in
    /// file order, as the SDKs read the INI syntax.
    static func parse(bytes: [UInt8], path: String) throws(InteropError) -> [(name: String, section: Section)] {
        let text = String(decoding: bytes, as: UTF8.self)
        var sections: [String: (location: SourceLocation, entries: [String: Entry])] = [:]
        var order: [String] = []
        var current: String?
        var diagnostics: [Diagnostic] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingSpaces
            let location = SourceLocation(file: path, line: index + 1, column: 1)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    diagnostics.append(Diagnostic(.invalidValue, at: location, "expected a section header such as [profile name], found \(trimmed.prefix(40))"))
                    continue
                }
                var name = String(trimmed.dropFirst().dropLast()).trimmingCharacters()
                if name.hasPrefix("profile ") { name = String(name.dropFirst("profile ".count)).trimmingCharacters() }
                current = name
                if sections[name] == nil { sections[name] = (location, [:]); order.append(name) }
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                // Continuation lines of nested settings (s3 =\n  key = value) start with spaces.
                if line.first == " " || line.first == "\t" { continue }
                diagnostics.append(Diagnostic(.invalidValue, at: location, "expected key = value, found \(trimmed.prefix(40))"))
                continue
            }
            if line.first == " " || line.first == "\t" { continue }  // a nested setting
            let key = Substring(trimmed[..<equals]).trimmingSpaces
            let value = Substring(trimmed[trimmed.index(after: equals)...]).trimmingSpaces
            guard let section = current else {
                diagnostics.append(Diagnostic(.invalidValue, at: location, "expected a [section] before \(key)", suggestion: "put [default] (or [profile NAME]) above it"))
                continue
            }
            let column = line.distance(from: line.startIndex, to: line.firstIndex { $0 != " " && $0 != "\t" } ?? line.startIndex) + 1
            sections[section]?.entries[key] = Entry(value: value, location: SourceLocation(file: path, line: index + 1, column: column))
        }
        if !diagnostics.isEmpty { throw InteropError(diagnostics) }
        return order.map { ($0, Section(location: sections[$0]!.location, entries: sections[$0]!.entries)) }
    }

    /// One profile's retry settings.
    static func importProfile(_ wanted: String, _ section: Section, path: String) throws(InteropError) -> ImportedPolicy {
        var imported = ImportedPolicy(name: "aws-\(wanted)", source: path, format: .awsConfig, attempts: 3, backoff: .immediate)
        var mode = "legacy"
        if let entry = section.entries["retry_mode"] {
            guard ["legacy", "standard", "adaptive"].contains(entry.value) else {
                throw InteropError([Diagnostic(.invalidValue, at: entry.location, "retry_mode: expected legacy, standard or adaptive, found \(entry.value.prefix(40))")])
            }
            mode = entry.value
        } else {
            imported.comment("", "retry_mode absent: the reference guide's default is legacy; some SDKs default to standard.")
            imported.warn("retry_mode", at: section.location, "retry_mode is not set: its default depends on the SDK (legacy in the reference guide); imported as legacy")
        }
        imported.comment("", "retry_mode \(mode) (AWS SDKs and Tools reference guide, Retry behavior).")
        var attempts = mode == "legacy" ? 5 : 3
        if let entry = section.entries["max_attempts"] {
            guard let value = Int(entry.value), value >= 1 else {
                throw InteropError([Diagnostic(.invalidValue, at: entry.location, "max_attempts: expected an integer of at least 1, found \(entry.value.prefix(40))")])
            }
            if value > 100 { imported.warn("max_attempts", at: entry.location, "the policy format allows 100 attempts; \(value) imported as 100") }
            attempts = min(value, 100)
            imported.comment("attempts", "max_attempts counts the first attempt too.")
        } else {
            imported.comment("attempts", mode == "legacy" ? "max_attempts absent: legacy mode's default 5 for most SDKs (3 in some)." : "max_attempts absent: \(mode) mode's default 3.")
        }
        imported.attempts = attempts
        imported.backoff = Backoff(initial: .seconds(1), max: .seconds(20), multiplier: 2, jitter: .full)
        imported.comment("backoff", "min(b x 2^i, 20s) seconds with b random in [0, 1]: full jitter from 1s, capped at 20s.")
        imported.retriedStatuses = [429, 500, 502, 503, 504]
        imported.retriedTransports = Set(TransportFailure.allCases).subtracting([.cancelled, .invalidURL, .decoding, .unknown])
        imported.comment("rules", "Transient errors (500, 502, 503, 504, connection errors, timeouts) and throttling (429).")
        imported.comment("rules", "Throttling error codes in a 400 body (Throttling, ThrottlingException...) cannot be matched by status.")
        imported.comment("idempotency", "AWS SDKs retry every operation.")
        imported.comment("retry_after", "AWS SDKs do not read Retry-After.")
        switch mode {
        case "standard":
            imported.budget = RetryBudgetConfiguration(capacity: 500, retryCost: 5, timeoutRetryCost: 10, successRefund: 1)
            imported.comment("budget", "Standard mode's retry quota: 500 tokens, a retry costs 5, a timeout retry 10.")
        case "adaptive":
            imported.budget = RetryBudgetConfiguration(capacity: 500, retryCost: 5, timeoutRetryCost: 10, successRefund: 1)
            imported.comment("budget", "Adaptive mode is standard mode plus client-side rate limiting, which is not represented.")
            imported.warn("retry_mode", at: section.entries["retry_mode"]!.location, "adaptive mode's client-side rate limiting has no policy equivalent; imported as standard")
        default:
            imported.comment("budget", "Legacy mode: the quota and backoff are SDK-specific; standard mode's backoff is used, no quota.")
            imported.warn("retry_mode", at: section.entries["retry_mode"]?.location ?? section.location, "legacy mode's backoff and quota differ between SDKs; imported with standard mode's backoff and no quota")
        }
        return imported
    }
}
