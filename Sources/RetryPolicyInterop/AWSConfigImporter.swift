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
    /// file order, read as botocore reads the INI syntax (Python's
    /// `configparser`, then `raw_config_parse`):
    ///
    /// - a line indented deeper than the option line above continues that
    ///   option's value (`s3 =` then indented `key = value` lines is a
    ///   nested setting; `retry_mode = standard` then an indented line is
    ///   one two-line value);
    /// - any other line, indented or not, is a section header or an
    ///   option: keys indented under a section header are read;
    /// - `=` or `:` separates a key from its value, and keys are
    ///   lower-cased;
    /// - comment lines (`#`, `;`) and blank lines do not end a value.
    static func parse(bytes: [UInt8], path: String) throws(InteropError) -> [(name: String, section: Section)] {
        let text = String(decoding: bytes, as: UTF8.self)
        var sections: [String: (location: SourceLocation, entries: [String: Entry])] = [:]
        var order: [String] = []
        var current: String?
        /// The option whose value indented lines continue, and the
        /// indentation of its line.
        var option: (key: String, lines: [Substring])?
        var optionIndent = 0
        var diagnostics: [Diagnostic] = []
        func finishOption() {
            guard let finished = option, let section = current else { return }
            var lines = finished.lines
            while lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
            sections[section]?.entries[finished.key]?.value = lines.joined(separator: "\n")
            option = nil
        }
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingSpaces
            let indent = line.prefix { $0 == " " || $0 == "\t" }.count
            let location = SourceLocation(file: path, line: index + 1, column: indent + 1)
            if trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.isEmpty {
                option?.lines.append("")
                continue
            }
            if option != nil && indent > optionIndent {
                option?.lines.append(trimmed)
                continue
            }
            finishOption()
            optionIndent = indent
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    diagnostics.append(Diagnostic(.invalidValue, at: location, "expected a section header such as [profile name], found \(trimmed.prefix(40))"))
                    current = nil
                    continue
                }
                var name = String(trimmed.dropFirst().dropLast().trimmingSpaces)
                if name.hasPrefix("profile ") { name = String(name.dropFirst("profile ".count).trimmingSpaces) }
                current = name
                if sections[name] == nil { sections[name] = (location, [:]); order.append(name) }
                continue
            }
            guard let separator = trimmed.firstIndex(where: { $0 == "=" || $0 == ":" }) else {
                diagnostics.append(Diagnostic(.invalidValue, at: location, "expected key = value, found \(trimmed.prefix(40))"))
                continue
            }
            let key = String(trimmed[..<separator].trimmingSpaces).lowercased()
            let value = trimmed[trimmed.index(after: separator)...].trimmingSpaces
            guard let section = current else {
                diagnostics.append(Diagnostic(.invalidValue, at: location, "expected a [section] before \(key)", suggestion: "put [default] (or [profile NAME]) above it"))
                continue
            }
            sections[section]?.entries[key] = Entry(value: String(value), location: location)
            option = (key, [value])
        }
        finishOption()
        if !diagnostics.isEmpty { throw InteropError(diagnostics) }
        return order.map { ($0, Section(location: sections[$0]!.location, entries: sections[$0]!.entries)) }
    }

    /// The suggestion for a value that runs over several lines: botocore
    /// reads an indented line as part of the option above it.
    static func continuationHint(_ entry: Entry) -> String? {
        guard entry.value.contains("\n") else { return nil }
        return "a line indented under an option continues its value (as botocore reads it): indent it no deeper than the option's line"
    }

    /// One profile's retry settings.
    static func importProfile(_ wanted: String, _ section: Section, path: String) throws(InteropError) -> ImportedPolicy {
        var imported = ImportedPolicy(name: "aws-\(wanted)", source: path, format: .awsConfig, attempts: 3, backoff: .immediate)
        var mode = "legacy"
        if let entry = section.entries["retry_mode"] {
            guard ["legacy", "standard", "adaptive"].contains(entry.value) else {
                throw InteropError([Diagnostic(
                    .invalidValue, at: entry.location, "retry_mode: expected legacy, standard or adaptive, found \(InteropValue.quoted(String(entry.value.prefix(40))))",
                    suggestion: continuationHint(entry))])
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
                throw InteropError([Diagnostic(
                    .invalidValue, at: entry.location, "max_attempts: expected an integer of at least 1, found \(InteropValue.quoted(String(entry.value.prefix(40))))",
                    suggestion: continuationHint(entry))])
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
            imported.comment("budget", "Adaptive mode is standard mode's retry quota plus client-side rate limiting.")
            imported.rateLimit = .aws
            imported.comment("rate_limit", "Adaptive mode's client-side rate limiter, with botocore's numbers (docs/adaptive-mode.md).")
        default:
            imported.comment("budget", "Legacy mode: the quota and backoff are SDK-specific; standard mode's backoff is used, no quota.")
            imported.warn("retry_mode", at: section.entries["retry_mode"]?.location ?? section.location, "legacy mode's backoff and quota differ between SDKs; imported with standard mode's backoff and no quota")
        }
        return imported
    }
}
