import RetryPolicyCore

/// What `retry-policy simulate --clients` reports about an outage storm,
/// as text, JSON or an SVG chart: the storm itself and, for a policy with
/// a breaker or hedging, the same storm without them, to show what each
/// changes.
public struct StormReport: Sendable {
    public var policy: Policy
    public var storm: OutageStorm
    /// The same storm with the breaker taken out of the policy.
    public var withoutBreaker: OutageStorm?
    /// The same storm with hedging taken out of the policy.
    package var withoutHedging: OutageStorm?
    /// The same storm with the rate limit taken out of the policy.
    package var withoutRateLimit: OutageStorm?

    /// The most histogram rows the text form shows.
    package static let maximumRows = 60

    public init(policy: Policy, storm: OutageStorm, withoutBreaker: OutageStorm? = nil, withoutHedging: OutageStorm? = nil) {
        self.policy = policy
        self.storm = storm
        self.withoutBreaker = withoutBreaker
        self.withoutHedging = withoutHedging
    }

    /// Runs the storm, and again without the breaker and without hedging
    /// when the policy has them.
    public static func run(policy: Policy, configuration: OutageStorm.Configuration) -> StormReport {
        let storm = OutageStorm.run(policy: policy, configuration: configuration)
        var unbroken: OutageStorm?
        if policy.breaker != nil {
            var without = policy
            without.breaker = nil
            unbroken = OutageStorm.run(policy: without, configuration: configuration)
        }
        var unhedged: OutageStorm?
        if policy.hedging != nil {
            var without = policy
            without.hedging = nil
            unhedged = OutageStorm.run(policy: without, configuration: configuration)
        }
        var report = StormReport(policy: policy, storm: storm, withoutBreaker: unbroken, withoutHedging: unhedged)
        if policy.rateLimit != nil {
            var without = policy
            without.rateLimit = nil
            report.withoutRateLimit = OutageStorm.run(policy: without, configuration: configuration)
        }
        return report
    }

    /// The report people read: the load, the outcome, what the breaker
    /// and hedging change, and a histogram of at most `maximumRows`
    /// windows.
    public var text: String {
        let unbroken = withoutBreaker
        let unhedged = withoutHedging
        let configuration = storm.configuration
        var output = "\(policy.name): \(configuration.clients) clients, outage of \(configuration.outage.formattedForHumans) answering \(configuration.outageResponse), "
        output += "jitter \(policy.backoff.jitter.rawValue), \(policy.budget == nil ? "no" : configuration.shared ? "one shared" : "per-client") budget\(policy.breaker == nil ? "" : configuration.shared ? ", one shared breaker" : ", per-client breaker")\(policy.rateLimit == nil ? "" : configuration.shared ? ", one shared rate limit" : ", per-client rate limit"), seed \(configuration.seed)\n"
        output += "server load: \(storm.totalRequests) requests in total, peak \(storm.peak) per \(configuration.window.formattedForHumans) at \(storm.peakAt.formattedForHumans)"
        output += " (\(Self.formatRatio(storm.totalRequests, configuration.clients)) requests per client)\n"
        output += "largest retry burst: \(plural(storm.retryBurst, "retry", plural: "retries")) within \(OutageStorm.burstWindow.formattedForHumans)\n"
        var outcome = "clients: \(storm.succeeded) succeeded"
        let failed = storm.failures.values.reduce(0, +)
        if failed > 0 {
            let reasons = storm.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }
            outcome += ", \(failed) failed (\(reasons.joined(separator: ", ")))"
        }
        if storm.rejectedByCooldown > 0 { outcome += ", \(storm.rejectedByCooldown) refused by cooldown without a request" }
        output += outcome + "; the last finished at \(storm.finishedAt.formattedForHumans)\n"
        if let unbroken {
            var line = "breaker: \(storm.outageRequests) requests during the outage, \(unbroken.outageRequests) without the breaker"
            if !storm.breakerPeriods.isEmpty {
                let opened = storm.breakerPeriods.filter { $0.state == .open }
                let openTime = opened.reduce(Duration.zero) { $0 + (($1.end ?? storm.finishedAt) - $1.start) }
                line += "; opened \(opened.count == 1 ? "once" : "\(opened.count) times"), open \(openTime.formattedForHumans) in total"
            } else if !storm.configuration.shared {
                line += " (one breaker per client)"
            }
            output += line + "\n"
        }
        if let unhedged {
            output += "hedging: \(storm.hedges) \(storm.hedges == 1 ? "copy" : "copies") sent while an earlier one was in flight or had failed; \(storm.totalRequests) requests in total, \(unhedged.totalRequests) without hedging"
            output += " (\(storm.outageRequests) and \(unhedged.outageRequests) during the outage)\n"
        }
        if let unlimited = withoutRateLimit {
            output += "rate limit: \(plural(storm.rateLimitWaits, "attempt", plural: "attempts")) waited \(storm.rateLimitWaited.formattedForHumans) in all; \(storm.totalRequests) requests in total, \(unlimited.totalRequests) without the rate limit"
            output += " (\(storm.outageRequests) and \(unlimited.outageRequests) during the outage)\n"
        }
        output += "requests per \(configuration.window.formattedForHumans):\n"
        let width = 40
        let labels = storm.load.indices.map { (configuration.window * $0).formattedForHumans }
        let labelWidth = labels.map(\.count).max() ?? 0
        for (index, count) in storm.load.enumerated().prefix(Self.maximumRows) {
            let bar = storm.peak > 0 ? Int((Double(count) / Double(storm.peak) * Double(width)).rounded(.up)) : 0
            let label = String(repeating: " ", count: labelWidth - labels[index].count) + labels[index]
            output += "  \(label) \(String(repeating: "#", count: bar)) \(count)\n"
        }
        if storm.load.count > Self.maximumRows {
            output += "  ... \(storm.load.count - Self.maximumRows) more windows (use --format json or --svg for all)\n"
        }
        return output
    }

    /// The report for tools, with every window of the histogram.
    public var json: JSONValue {
        let unbroken = withoutBreaker
        let unhedged = withoutHedging
        let configuration = storm.configuration
        var hedging: [(String, JSONValue)] = []
        if let unhedged {
            hedging = [("hedging", .object([
                ("hedges", .int(storm.hedges)),
                ("total_requests_without_hedging", .int(unhedged.totalRequests)),
                ("outage_requests", .int(storm.outageRequests)),
                ("outage_requests_without_hedging", .int(unhedged.outageRequests)),
            ]))]
        }
        if let unlimited = withoutRateLimit {
            hedging.append(("rate_limit", .object([
                ("waits", .int(storm.rateLimitWaits)),
                ("waited_ms", JSONValue.milliseconds(storm.rateLimitWaited)),
                ("total_requests_without_rate_limit", .int(unlimited.totalRequests)),
                ("outage_requests", .int(storm.outageRequests)),
                ("outage_requests_without_rate_limit", .int(unlimited.outageRequests)),
            ])))
        }
        var breaker: [(String, JSONValue)] = []
        if let unbroken {
            breaker = [("breaker", .object([
                ("outage_requests", .int(storm.outageRequests)),
                ("outage_requests_without_breaker", .int(unbroken.outageRequests)),
                ("periods", .array(storm.breakerPeriods.map { period in
                    .object([
                        ("state", .string(period.state.rawValue)),
                        ("start_ms", JSONValue.milliseconds(period.start)),
                        ("end_ms", period.end.map(JSONValue.milliseconds) ?? .null),
                    ])
                })),
            ]))]
        }
        return .object([
            ("policy", .string(policy.name)),
            ("clients", .int(configuration.clients)),
            ("outage_ms", JSONValue.milliseconds(configuration.outage)),
            ("outage_response", .string(configuration.outageResponse.description)),
            ("seed", .int(Int(truncatingIfNeeded: configuration.seed))),
            ("shared_budget", .bool(configuration.shared)),
            ("window_ms", JSONValue.milliseconds(configuration.window)),
            ("total_requests", .int(storm.totalRequests)),
            ("peak_requests", .int(storm.peak)),
            ("peak_at_ms", JSONValue.milliseconds(storm.peakAt)),
            ("retry_burst_10ms", .int(storm.retryBurst)),
            ("succeeded", .int(storm.succeeded)),
            ("failed", .object(storm.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, .int($0.value)) })),
            ("rejected_by_cooldown", .int(storm.rejectedByCooldown)),
            ("finished_at_ms", JSONValue.milliseconds(storm.finishedAt)),
            ("load", .array(storm.load.map(JSONValue.int))),
        ] + breaker + hedging)
    }

    /// An SVG bar chart of the load per window, with the end of the outage
    /// and a shared breaker's open and half-open periods marked.
    public var svg: String {
        let configuration = storm.configuration
        let load = storm.load
        let title = "\(policy.name): \(configuration.clients) clients, \(configuration.outage.formattedForHumans) outage of \(configuration.outageResponse), jitter \(policy.backoff.jitter.rawValue)"
        let width = 800.0
        let height = 320.0
        let left = 60.0
        let bottom = 40.0
        let top = 40.0
        let plotWidth = width - left - 20
        let plotHeight = height - top - bottom
        // At most 400 bars: finer histograms are summed into wider windows.
        let group = max(1, (load.count + 399) / 400)
        let bars = stride(from: 0, to: max(load.count, 1), by: group).map { start in
            load[start..<min(start + group, load.count)].reduce(0, +)
        }
        let window = configuration.window * group
        let peak = bars.max() ?? 0
        let barWidth = plotWidth / Double(max(bars.count, 1))
        let scale = peak > 0 ? plotHeight / Double(peak) : 0
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <title>\(XMLText.escape(title))</title>
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Int(left))" y="24" font-size="14">\(XMLText.escape(title))</text>

            """
        // Shared breaker periods behind the bars: open in grey, half-open
        // in yellow.
        let periodNanos = Double(max(window.nanosecondsSaturated, 1))
        let plotEnd = window * bars.count
        for period in storm.breakerPeriods {
            let end = min(period.end ?? plotEnd, plotEnd)
            guard end > period.start else { continue }
            let x = left + Double(period.start.nanosecondsSaturated) / periodNanos * barWidth
            let span = Double((end - period.start).nanosecondsSaturated) / periodNanos * barWidth
            let fill = period.state == .open ? "#cccccc" : "#f0e68c"
            let label = period.state == .open ? "breaker open" : "breaker half-open"
            svg += "<rect x=\(Self.quoted(x)) y=\(Self.quoted(top)) width=\(Self.quoted(max(span, 0.5))) height=\(Self.quoted(plotHeight)) fill=\"\(fill)\" fill-opacity=\"0.6\"><title>\(label) from \(period.start.formattedForHumans) to \(end.formattedForHumans)</title></rect>\n"
        }
        for (index, count) in bars.enumerated() where count > 0 {
            let x = left + Double(index) * barWidth
            let barHeight = Double(count) * scale
            svg += "<rect x=\(Self.quoted(x)) y=\(Self.quoted(top + plotHeight - barHeight)) width=\(Self.quoted(max(barWidth - 1, 0.5))) height=\(Self.quoted(barHeight)) fill=\"#d9534f\"><title>\(count) requests at \((window * index).formattedForHumans)</title></rect>\n"
        }
        let windowNanos = Double(max(window.nanosecondsSaturated, 1))
        let outageX = left + Double(configuration.outage.nanosecondsSaturated) / windowNanos * barWidth
        if outageX <= left + plotWidth {
            svg += "<line x1=\(Self.quoted(outageX)) y1=\(Self.quoted(top)) x2=\(Self.quoted(outageX)) y2=\(Self.quoted(top + plotHeight)) stroke=\"#337ab7\" stroke-dasharray=\"4 3\"/>\n"
            svg += "<text x=\(Self.quoted(outageX + 4)) y=\(Self.quoted(top + 12)) fill=\"#337ab7\">outage ends</text>\n"
        }
        svg += "<line x1=\(Self.quoted(left)) y1=\(Self.quoted(top + plotHeight)) x2=\(Self.quoted(left + plotWidth)) y2=\(Self.quoted(top + plotHeight)) stroke=\"black\"/>\n"
        svg += "<line x1=\(Self.quoted(left)) y1=\(Self.quoted(top)) x2=\(Self.quoted(left)) y2=\(Self.quoted(top + plotHeight)) stroke=\"black\"/>\n"
        svg += "<text x=\(Self.quoted(left - 6)) y=\(Self.quoted(top + 4)) text-anchor=\"end\">\(peak)</text>\n"
        svg += "<text x=\(Self.quoted(left - 6)) y=\(Self.quoted(top + plotHeight)) text-anchor=\"end\">0</text>\n"
        svg += "<text x=\(Self.quoted(left)) y=\(Self.quoted(height - 12))>0s</text>\n"
        svg += "<text x=\(Self.quoted(left + plotWidth)) y=\(Self.quoted(height - 12)) text-anchor=\"end\">\((window * bars.count).formattedForHumans)</text>\n"
        svg += "<text x=\(Self.quoted(left + plotWidth / 2)) y=\(Self.quoted(height - 12)) text-anchor=\"middle\">requests per \(window.formattedForHumans) (peak \(peak), total \(storm.totalRequests))</text>\n"
        svg += "</svg>\n"
        return svg
    }

    private static func quoted(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return "\"\(rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded))\""
    }

    static func formatRatio(_ total: Int, _ clients: Int) -> String {
        guard clients > 0 else { return "0" }
        let tenths = Int((Double(total) / Double(clients) * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
