import RetryPolicyCore

extension RequestTimeline {
    /// The timeline as `retry-policy simulate` prints it: a heading, one
    /// row per attempt (time, attempt, response, decision, rule) and the
    /// result. A hedged request's copies overlap, so each row then shows
    /// when its copy ran, in the order the copies finished.
    public func text(policy: Policy, path: String, seed: UInt64) -> String {
        let hedged = attempts.indices.contains { index in
            index > 0 && attempts[index].start < attempts[index - 1].start
                || attempts[index].response.outcome == .transport(.cancelled)
                || (index > 0 && attempts[index].start < attempts[index - 1].start + attempts[index - 1].duration)
        }
        let shown = DecisionText.millisecond
        var rows: [[String]] = [["time", "attempt", "response", "decision", "rule"]]
        for attempt in attempts {
            let decision = DecisionText.timelineRow(attempt.decision, drawn: attempt.delay, hedged: hedged)
            let rule = attempt.decision.rule.map { "\($0.file):\($0.line)" } ?? "-"
            let time = hedged ? "t=\(shown(attempt.start))..\(shown(attempt.start + attempt.duration))" : "t=" + shown(attempt.start)
            rows.append([time, "\(attempt.number)", attempt.response.description, decision, rule])
        }
        var output = "\(policy.name) (\(path)), seed \(seed)\n"
        output += Self.table(rows)
        switch result.action {
        case .success:
            output += "result: success after \(plural(attempts.count, "attempt")) in \(shown(elapsed))\n"
        default:
            output += "result: \(result.error?.rawValue ?? "") (\(result.reason?.rawValue ?? "")) after \(plural(attempts.count, "attempt")) in \(shown(elapsed))\n"
        }
        return output
    }

    /// The timeline for tools, with exact times.
    public func json(policy: Policy, seed: UInt64) -> JSONValue {
        .object([
            ("policy", .string(policy.name)),
            ("seed", .int(Int(truncatingIfNeeded: seed))),
            ("attempts", .array(attempts.map { attempt in
                .object([
                    ("attempt", .int(attempt.number)),
                    ("start_ms", JSONValue.milliseconds(attempt.start)),
                    ("response", .string(attempt.response.description)),
                    ("decision", DecisionJSON.value(attempt.decision)),
                    ("delay_ms", attempt.delay.map(JSONValue.milliseconds) ?? .null),
                ])
            })),
            ("result", .object([
                ("action", .string(result.action.rawValue)),
                ("error", .optional(result.error?.rawValue)),
                ("reason", .optional(result.reason?.rawValue)),
                ("attempts", .int(attempts.count)),
                ("elapsed_ms", JSONValue.milliseconds(elapsed)),
            ])),
        ])
    }

    /// Left-aligned columns separated by two spaces.
    private static func table(_ rows: [[String]]) -> String {
        guard let columns = rows.first?.count else { return "" }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == columns - 1 ? cell : padded(cell, to: widths[index])
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// `text` padded with spaces, or cut, to `length` UTF-16 code units, as
    /// Foundation's `padding(toLength:withPad:startingAt:)` does.
    private static func padded(_ text: String, to length: Int) -> String {
        let units = text.utf16.count
        if units < length { return text + String(repeating: " ", count: length - units) }
        if units == length { return text }
        return String(decoding: Array(text.utf16.prefix(length)), as: UTF16.self)
    }
}
