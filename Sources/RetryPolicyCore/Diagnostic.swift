/// One problem found in a file, located precisely enough for an editor or
/// a CI annotation to jump to it: a loader error, a lint finding, a setting
/// another format cannot express, a recording line replay skipped.
///
/// Every tool that reports a located problem reports it as a diagnostic, so
/// that all of them print it one way: `file:line:col: severity: message
/// [id]`, the form compilers use, which terminals and editors make
/// clickable.
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    /// How much a diagnostic matters. Ordered: a note is below a warning,
    /// a warning below an error, so a threshold (lint's `--fail-level`)
    /// is a comparison.
    public enum Severity: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
        case error
        case warning
        case note

        public var description: String { rawValue }

        private var rank: Int {
            switch self {
            case .error: 2
            case .warning: 1
            case .note: 0
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// The pieces of a printed diagnostic a report may style (colour, bold).
    package enum Part: Hashable, Sendable {
        /// `file:line:col:`, with its colon.
        case location
        /// `warning:`, with its colon.
        case severity
        /// The message, escaped.
        case message
        /// `suggestion:`, the label of the suggestion's own line.
        case suggestionLabel
    }

    /// A stable id that documentation, suppressions and configuration refer
    /// to (`RP001`, `RP101`), or the name of what a conversion loses
    /// (`jitter`); it never changes meaning between releases. `nil` where
    /// there is no such name (a recording line replay skipped).
    public var id: String?
    public var severity: Severity
    public var location: SourceLocation
    /// One line: what was expected and what was found. Kept as found, for
    /// formats that encode it (JSON, SARIF); the printed forms escape it.
    public var message: String
    /// A likely fix, such as "did you mean 'backoff'?".
    public var suggestion: String?

    public init(
        id: String? = nil,
        severity: Severity = .error,
        location: SourceLocation,
        message: String,
        suggestion: String? = nil
    ) {
        self.id = id
        self.severity = severity
        self.location = location
        self.message = message
        self.suggestion = suggestion
    }

    /// `file:line:col: error: message [RP001]`, followed by
    /// ` (did you mean ...)` when there is a suggestion: one line.
    ///
    /// The path, the message and the suggestion may quote the file (a key,
    /// a value, a name declared there), so each is made safe to print with
    /// `DisplayText`: whoever prints a diagnostic prints one line that
    /// cannot steer a terminal or forge a CI annotation.
    public var description: String {
        var text = headline()
        if let suggestion { text += " (\(DisplayText.escaped(suggestion)))" }
        return text
    }

    /// The `headline(styling:)`, then the suggestion on an indented line
    /// of its own (`suggestionLine(styling:)`): for reports a person
    /// reads rather than a tool.
    package var indentedDescription: String {
        var text = headline()
        if let line = suggestionLine() { text += "\n" + line }
        return text
    }

    /// `file:line:col: severity: message [id]`, without the suggestion,
    /// each part escaped and then passed through `style` with its `Part`
    /// (a terminal report adds colour there).
    package func headline(styling style: (String, Part) -> String = { text, _ in text }) -> String {
        var text = style(DisplayText.escaped(location.description) + ":", .location)
        text += " " + style(severity.rawValue + ":", .severity)
        text += " " + style(DisplayText.escaped(message), .message)
        if let id { text += " [\(DisplayText.escaped(id))]" }
        return text
    }

    /// `    suggestion: ...`, the suggestion escaped; `nil` without one.
    package func suggestionLine(styling style: (String, Part) -> String = { text, _ in text }) -> String? {
        suggestion.map { "    " + style("suggestion:", .suggestionLabel) + " " + DisplayText.escaped($0) }
    }

    /// `RP008 at file:line:col` (the severity where there is no id): how
    /// another diagnostic's message cites this one. Not escaped: it becomes
    /// part of a message, which every printed form escapes.
    package var citation: String { "\(id ?? severity.rawValue) at \(location)" }

    /// The diagnostics one per line, each as its ``description``: the text of
    /// an error that holds several.
    package static func lines(_ diagnostics: some Sequence<Diagnostic>) -> String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
