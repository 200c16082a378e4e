import RetryPolicyCore
import RetryPolicyYAML

/// Inline comments that silence rules:
///
///     backoff:            # retry-policy: disable=RP107
///     # retry-policy: disable=RP101,RP108   (on its own line: the next line)
///     # retry-policy: disable-file=RP114
///
/// A suppression that silences nothing is reported (RP116), so stale
/// comments cannot hide the next real problem.
public struct Suppressions: Sendable {
    public struct Entry: Hashable, Sendable {
        public enum Scope: Hashable, Sendable {
            case line(Int)
            case file
        }

        public var id: String
        public var scope: Scope
        /// Where the comment is written.
        public var location: SourceLocation
    }

    public private(set) var entries: [Entry]
    /// Comments that name a loader check (RP0xx): those cannot be silenced,
    /// since a file the loader rejects is not a policy at all, and naming
    /// one is an error of its own.
    public private(set) var refused: [Entry] = []

    /// Finds every suppression comment in `source`.
    public init(source: String, file: String) {
        entries = []
        // Most files have no suppression at all: skip splitting them into
        // lines when the directive's text appears nowhere.
        guard Self.mentionsDirective(source) else { return }
        let lines = SourceLines.split(source)
        var pendingOwnLine: [(id: String, location: SourceLocation)] = []
        for (offset, rawLine) in lines.enumerated() {
            let lineNumber = offset + 1
            let line = rawLine
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            let isBlankOrComment = trimmed.isEmpty || trimmed.hasPrefix("#")
            if !isBlankOrComment {
                for pending in pendingOwnLine {
                    entries.append(Entry(id: pending.id, scope: .line(lineNumber), location: pending.location))
                }
                pendingOwnLine = []
            }
            guard let (directive, ids, column) = Self.directive(in: line) else { continue }
            let location = SourceLocation(file: file, line: lineNumber, column: column)
            for id in ids {
                if LoaderRule(rawValue: id) != nil {
                    refused.append(Entry(id: id, scope: directive == "disable-file" ? .file : .line(lineNumber), location: location))
                } else if directive == "disable-file" {
                    entries.append(Entry(id: id, scope: .file, location: location))
                } else if trimmed.hasPrefix("#") {
                    pendingOwnLine.append((id, location))
                } else {
                    entries.append(Entry(id: id, scope: .line(lineNumber), location: location))
                }
            }
        }
    }

    /// `(directive, ids, column of '#')` for a comment such as
    /// `# retry-policy: disable=RP105,RP106`.
    /// Whether `source` contains `retry-policy:` anywhere, which every
    /// directive does.
    static func mentionsDirective(_ source: String) -> Bool {
        let needle: [UInt8] = Array("retry-policy:".utf8)
        var text = source
        return text.withUTF8 { bytes in
            guard bytes.count >= needle.count else { return false }
            var start = 0
            let last = bytes.count - needle.count
            while start <= last {
                if bytes[start] == needle[0] {
                    var matched = 1
                    while matched < needle.count && bytes[start + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                }
                start += 1
            }
            return false
        }
    }

    static func directive(in line: Substring) -> (String, [String], Int)? {
        var inSingle = false
        var inDouble = false
        var column = 0
        for (index, character) in zip(line.indices, line) {
            column += 1
            switch character {
            case "'" where !inDouble: inSingle.toggle()
            case "\"" where !inSingle: inDouble.toggle()
            case "#" where !inSingle && !inDouble:
                let isCommentStart = index == line.startIndex || line[line.index(before: index)] == " " || line[line.index(before: index)] == "\t"
                guard isCommentStart else { continue }
                let comment = line[line.index(after: index)...].drop { $0 == " " }
                guard comment.hasPrefix("retry-policy:") else { return nil }
                let body = comment.dropFirst("retry-policy:".count).drop { $0 == " " }
                let parts = body.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { return nil }
                let directive = String(parts[0].trimmingSpaces)
                guard directive == "disable" || directive == "disable-file" else { return nil }
                let idText = parts[1].split(separator: " ", maxSplits: 1).first ?? ""
                let ids = idText.split(separator: ",").map { String($0.trimmingSpaces).uppercased() }.filter { !$0.isEmpty }
                return ids.isEmpty ? nil : (directive, ids, column)
            default: continue
            }
        }
        return nil
    }

    /// Removes suppressed findings and adds one RP116 finding per
    /// suppression that removed nothing.
    public func apply(to findings: [LintFinding]) -> [LintFinding] {
        var used = Set<Entry>()
        var kept: [LintFinding] = []
        for finding in findings {
            let silencing = entries.filter { entry in
                guard entry.id == finding.id, entry.location.file == finding.location.file else { return false }
                switch entry.scope {
                case .file: return true
                case .line(let line): return line == finding.location.line
                }
            }
            if silencing.isEmpty {
                kept.append(finding)
            } else {
                used.formUnion(silencing)
            }
        }
        for entry in refused {
            kept.append(LintFinding(
                id: LoaderRule.invalidValue.id, severity: .error, location: entry.location,
                message: "\(entry.id) is a loader check and cannot be suppressed: a file the loader rejects is not a policy",
                suggestion: "fix the problem \(entry.id) reports and delete \(entry.id) from the comment"))
        }
        for entry in entries where !used.contains(entry) {
            let scope: String
            switch entry.scope {
            case .file: scope = "in this file"
            case .line(let line): scope = "on line \(line)"
            }
            kept.append(LintFinding(
                id: UnusedSuppression.rule.id, severity: UnusedSuppression.rule.defaultSeverity, location: entry.location,
                message: "suppression of \(entry.id) silences nothing: no \(entry.id) finding \(scope)",
                suggestion: "delete the comment"))
        }
        return kept
    }
}
