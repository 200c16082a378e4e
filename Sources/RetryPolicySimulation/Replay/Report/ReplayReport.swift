import RetryPolicyCore

/// What `retry-policy replay` reports: the policy's run over the
/// recording, beside the baseline's and the recording's own numbers, as
/// text, JSON, Markdown (for a pull-request comment) and an SVG of the
/// load over time.
public struct ReplayReport: Sendable {
    /// One recording file as it was read.
    public struct Input: Hashable, Sendable {
        public var path: String
        public var format: TrafficFormat?
        public var requests: Int
        public var warnings: Int
        /// Whether the recording's format can hold the server-delay
        /// headers the policies read (`TrafficFormat.carries(anyOf:nginxFormat:)`).
        public var carriesServerDelays: Bool

        public init(path: String, format: TrafficFormat?, requests: Int, warnings: Int, carriesServerDelays: Bool = true) {
            self.path = path
            self.format = format
            self.requests = requests
            self.warnings = warnings
            self.carriesServerDelays = carriesServerDelays
        }
    }

    public var run: ReplayRun
    public var baseline: ReplayRun?
    public var inputs: [Input]
    public var seed: UInt64
    public var conditions: [FailCondition]

    public init(run: ReplayRun, baseline: ReplayRun?, inputs: [Input], seed: UInt64, conditions: [FailCondition] = []) {
        self.run = run
        self.baseline = baseline
        self.inputs = inputs
        self.seed = seed
        self.conditions = conditions
    }

    /// The conditions of `--fail-if` that hold.
    package var failedConditions: [FailCondition] { conditions.filter { $0.holds(in: self) } }

    /// The rows every form shows: a label, the policy's value, the
    /// baseline's, the recording's.
    struct Row {
        var label: String
        var policy: String
        var baseline: String?
        var recorded: String
    }

    var rows: [Row] {
        func amplification(_ value: Double) -> String { Self.fixed(value, 2) + "x" }
        func waits(_ run: ReplayRun) -> String {
            "\(run.waitPercentile(0.5).formattedForHumans) / \(run.waitPercentile(0.95).formattedForHumans) / \(run.waitPercentile(0.99).formattedForHumans)"
        }
        func stops(_ run: ReplayRun) -> String {
            let parts = run.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
            return parts.isEmpty ? "none" : parts.joined(separator: ", ")
        }
        func cooldown(_ run: ReplayRun) -> String {
            "\(run.heldByCooldown) held back, \(run.rejectedByCooldown) refused"
        }
        func breaker(_ run: ReplayRun) -> String {
            guard run.policy.breaker != nil else { return "none" }
            let open = run.breakerPeriods.filter { $0.state == .open }
                .reduce(Duration.zero) { $0 + (($1.end ?? run.finishedAt) - $1.start) }
            return "opened \(run.breakerOpenings)x, open \(open.formattedForHumans), \(run.rejectedByBreaker) refused"
        }
        func budget(_ run: ReplayRun) -> String {
            run.policy.budget == nil ? "none" : "\(run.budgetStops) stopped"
        }
        func peak(_ run: ReplayRun) -> String { Self.fixed(run.peakPerSecond, 1) + "/s" }
        let recorded = run
        return [
            Row(label: "requests", policy: "\(run.requests)", baseline: baseline.map { "\($0.requests)" }, recorded: "\(recorded.requests)"),
            Row(label: "attempts", policy: "\(run.attempts)", baseline: baseline.map { "\($0.attempts)" }, recorded: "\(recorded.recordedAttempts)"),
            Row(label: "amplification", policy: amplification(run.amplification), baseline: baseline.map { amplification($0.amplification) },
                recorded: amplification(recorded.recordedAmplification)),
            Row(label: "success rate", policy: Self.fixed(run.successRate, 2) + "%", baseline: baseline.map { Self.fixed($0.successRate, 2) + "%" },
                recorded: Self.fixed(recorded.recordedSuccessRate, 2) + "%"),
            Row(label: "wait p50 / p95 / p99", policy: waits(run), baseline: baseline.map(waits), recorded: "-"),
            Row(label: "peak attempts", policy: peak(run), baseline: baseline.map(peak), recorded: Self.fixed(recorded.recordedPeakPerSecond, 1) + "/s"),
            Row(label: "stops", policy: stops(run), baseline: baseline.map(stops), recorded: "-"),
            Row(label: "cooldown", policy: cooldown(run), baseline: baseline.map(cooldown), recorded: "-"),
            Row(label: "breaker", policy: breaker(run), baseline: baseline.map(breaker), recorded: "-"),
            Row(label: "budget", policy: budget(run), baseline: baseline.map(budget), recorded: "-"),
        ]
    }

    /// What every replay assumes about state, said in every form: the
    /// driver keeps one budget, breaker and cooldown for all the clients.
    package static let sharedStateAssumption =
        "assumes one retry budget, circuit breaker and cooldown shared by every client of the recording (as a fleet sharing them through PostgreSQL); clients that each keep their own are held back less"

    /// Warnings about what the replay cannot show: a policy that believes
    /// server delays replayed from a recording that cannot hold them. The
    /// paths and names are as given: each form escapes them its own way.
    public var notes: [String] {
        let honouring = ([run.policy] + (baseline.map { [$0.policy] } ?? [])).filter(\.honoursServerDelays)
        guard let policy = honouring.first else { return [] }
        let header = policy.retryAfter.headers.first?.name ?? "Retry-After"
        let names = honouring.map(\.name).joined(separator: " and ")
        return inputs.filter { !$0.carriesServerDelays }.map { input in
            let what = switch input.format {
            case .envoy?: "an Envoy access log in the default format, which has no response header field"
            case .nginx?: "an nginx access log whose log_format logs no $sent_http_ or $upstream_http_ header the policy reads"
            default: "a recording that holds no response headers"
            }
            return "\(input.path) is \(what), but \(names) \(honouring.count == 1 ? "honours" : "honour") \(header): every recorded response replays without a server delay (log the header, e.g. $sent_http_retry_after with --nginx-log-format, or record HAR or JSONL)"
        }
    }

    /// The recording's time range, as text.
    var rangeText: String {
        guard let first = run.firstStart, let last = run.lastStart else { return "no requests" }
        return "\(RecordedTime.format(first)) to \(RecordedTime.format(last)) (\(last.duration(since: first).formattedForHumans))"
    }

    var headline: String {
        let warnings = inputs.reduce(0) { $0 + $1.warnings }
        return "replay of \(plural(run.requests, "recorded request")) from \(plural(inputs.count, "file")), \(rangeText), seed \(seed)"
            + (warnings > 0 ? ", \(plural(warnings, "line")) skipped (warnings on standard error)" : "")
    }

    public var text: String {
        var header = ["", DisplayText.escaped(run.policy.name)]
        if let baseline { header.append("baseline " + DisplayText.escaped(baseline.policy.name)) }
        header.append("recorded")
        var table = [header]
        for row in rows {
            var line = [row.label, row.policy]
            if baseline != nil { line.append(row.baseline ?? "-") }
            line.append(row.recorded)
            table.append(line)
        }
        let widths = (0..<header.count).map { column in table.map { $0[column].count }.max() ?? 0 }
        var output = headline + "\n"
        for line in table {
            let cells = line.enumerated().map { column, cell in
                column == line.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            output += cells.joined(separator: "  ") + "\n"
        }
        output += Self.sharedStateAssumption + "\n"
        for note in notes { output += "warning: " + DisplayText.escaped(note) + "\n" }
        output += conditionsText
        return output
    }

    private var conditionsText: String {
        guard !conditions.isEmpty else { return "" }
        var output = ""
        for condition in conditions {
            let value = Self.fixed(condition.value(in: self), 2)
            output += condition.holds(in: self)
                ? "FAIL \(condition.text) (the value is \(value))\n" : "pass \(condition.text) (the value is \(value))\n"
        }
        return output
    }

    /// A table for a pull-request comment.
    public var markdown: String {
        var output = "### Replay: \(MarkdownCell.text(run.policy.name))" + (baseline.map { " against \(MarkdownCell.text($0.policy.name))" } ?? "") + "\n\n"
        output += headline.prefix(1).uppercased() + headline.dropFirst() + ".\n\n"
        var header = "| | \(MarkdownCell.text(run.policy.name)) |"
        var rule = "|---|---|"
        if let baseline {
            header += " baseline \(MarkdownCell.text(baseline.policy.name)) |"
            rule += "---|"
        }
        output += header + " recorded |\n" + rule + "---|\n"
        for row in rows {
            output += "| \(row.label) | \(MarkdownCell.text(row.policy)) |"
            if baseline != nil { output += " \(MarkdownCell.text(row.baseline ?? "-")) |" }
            output += " \(MarkdownCell.text(row.recorded)) |\n"
        }
        output += "\n" + MarkdownCell.text(Self.sharedStateAssumption.prefix(1).uppercased() + Self.sharedStateAssumption.dropFirst()) + ".\n"
        for note in notes { output += "\n> :warning: " + MarkdownCell.text(note) + "\n" }
        if !conditions.isEmpty {
            output += "\n"
            for condition in conditions {
                let value = Self.fixed(condition.value(in: self), 2)
                output += condition.holds(in: self)
                    ? "- :x: `\(condition.text)` holds (the value is \(value))\n"
                    : "- :white_check_mark: `\(condition.text)` does not hold (the value is \(value))\n"
            }
        }
        return output
    }

    /// Names from outside (the recordings' paths, the policies' names)
    /// are kept exact: `JSONValue` writes every control, bidirectional
    /// control and `##[` as a `\u` escape, which a JSON reader turns back
    /// into the exact text.
    public var json: JSONValue {
        func runJSON(_ run: ReplayRun) -> JSONValue {
            var object: [(String, JSONValue)] = [
                ("policy", .string(run.policy.name)),
                ("requests", .int(run.requests)),
                ("attempts", .int(run.attempts)),
                ("amplification", .double(Self.rounded(run.amplification, 4))),
                ("succeeded", .int(run.succeeded)),
                ("success_rate", .double(Self.rounded(run.successRate, 4))),
                ("failed", .object(run.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, .int($0.value)) })),
                ("wait_ms", .object([
                    ("p50", JSONValue.milliseconds(run.waitPercentile(0.5))),
                    ("p95", JSONValue.milliseconds(run.waitPercentile(0.95))),
                    ("p99", JSONValue.milliseconds(run.waitPercentile(0.99))),
                ])),
                ("held_by_cooldown", .int(run.heldByCooldown)),
                ("peak_attempts_per_second", .double(Self.rounded(run.peakPerSecond, 3))),
                ("rejected_by_cooldown", .int(run.rejectedByCooldown)),
                ("rejected_by_breaker", .int(run.rejectedByBreaker)),
                ("budget_stops", .int(run.budgetStops)),
                ("breaker_periods", .array(run.breakerPeriods.map { period in
                    .object([
                        ("state", .string(period.state.rawValue)),
                        ("start_ms", JSONValue.milliseconds(period.start)),
                        ("end_ms", period.end.map(JSONValue.milliseconds) ?? .null),
                    ])
                })),
                ("finished_at_ms", JSONValue.milliseconds(run.finishedAt)),
                ("load", Self.json(run.load)),
            ]
            object.append(("window_ms", JSONValue.milliseconds(run.window)))
            return .object(object)
        }
        let recorded: JSONValue = .object([
            ("requests", .int(run.requests)),
            ("attempts", .int(run.recordedAttempts)),
            ("amplification", .double(Self.rounded(run.recordedAmplification, 4))),
            ("success_rate", .double(Self.rounded(run.recordedSuccessRate, 4))),
            ("peak_attempts_per_second", .double(Self.rounded(run.recordedPeakPerSecond, 3))),
            ("first_start", run.firstStart.map { .string(RecordedTime.format($0)) } ?? .null),
            ("last_start", run.lastStart.map { .string(RecordedTime.format($0)) } ?? .null),
            ("load", Self.json(run.recordedLoad)),
            ("inputs", .array(inputs.map { input in
                .object([
                    ("path", .string(input.path)),
                    ("format", .optional(input.format?.rawValue)),
                    ("requests", .int(input.requests)),
                    ("warnings", .int(input.warnings)),
                    ("carries_server_delays", .bool(input.carriesServerDelays)),
                ])
            })),
        ])
        return .object([
            ("seed", .int(Int(truncatingIfNeeded: seed))),
            ("assumptions", .array([.string(Self.sharedStateAssumption)])),
            ("warnings", .array(notes.map(JSONValue.string))),
            ("recorded", recorded),
            ("policy", runJSON(run)),
            ("baseline", baseline.map(runJSON) ?? .null),
            ("fail_if", .array(conditions.map { condition in
                .object([
                    ("condition", .string(condition.text)),
                    ("value", .double(Self.rounded(condition.value(in: self), 4))),
                    ("holds", .bool(condition.holds(in: self))),
                ])
            })),
        ])
    }

    static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((value * scale).rounded())
        return (scaled < 0 ? "-" : "") + NumberText.decimal(scaled.magnitude > Int64.max.magnitude ? Int64.max : Int64(scaled.magnitude), fractionDigits: digits)
    }

    static func rounded(_ value: Double, _ digits: Int) -> Double {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return (value * scale).rounded() / scale
    }

    /// The non-empty windows of a load as `[window, attempts]` pairs, in
    /// time order: a gap of any length costs nothing.
    static func json(_ load: LoadSeries) -> JSONValue {
        .array(load.windows.map { .array([.int(Int(truncatingIfNeeded: $0.index)), .int($0.attempts)]) })
    }
}
