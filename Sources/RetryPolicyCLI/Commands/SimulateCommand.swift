import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyCommandSupport

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Play a request or an outage storm through a policy on a test clock.",
        discussion: """
            One request: --responses lists what each attempt gets, in order; the last one repeats \
            if the policy keeps retrying. A response is a status with optional headers as curl \
            writes them, each after a ';', or a transport failure class:
              retry-policy simulate policies/tmdb.yaml --responses '503,503,429; Retry-After: 2,200'
              retry-policy simulate policies/tmdb.yaml --responses timeout,connection_lost,200 --seed 7

            A storm: --clients N clients hit an outage together; the server answers \
            --outage-response for --outage, then 200. The report gives the peak and total load on \
            the server, which shows what jitter and budgets do to a retry storm:
              retry-policy simulate policies/tmdb.yaml --clients 1000 --outage 20s --svg storm.svg

            Time is simulated (nothing sleeps) and jitter is drawn from --seed, so a run is \
            reproducible on every machine.
            """)

    @Argument(help: "The policy file (- reads it from standard input).")
    var policy: String

    @Option(help: ArgumentHelp("Comma-separated responses, one per attempt: 503, '429; Retry-After: 2', timeout, 200.", valueName: "list"))
    var responses: String?

    @Option(help: "Seed for the jitter draws.")
    var seed: UInt64 = 1

    @Option(help: "How long each attempt takes (a timeout takes timeouts.per_attempt).", transform: DurationArgument.parse)
    var latency = DurationArgument(.zero)

    @OptionGroup var request: RequestOptions

    @Option(help: "Simulate this many clients hitting an outage at once.")
    var clients: Int?

    @Option(help: "How long the outage lasts (with --clients).", transform: DurationArgument.parse)
    var outage = DurationArgument(.seconds(10))

    @Option(name: .customLong("outage-response"), help: "What the server answers during the outage (with --clients).")
    var outageResponse: String = "503"

    @Option(help: "Clients start spread uniformly over this window (with --clients).", transform: DurationArgument.parse)
    var spread = DurationArgument(.zero)

    @Option(help: "Width of one bar of the load histogram (with --clients).", transform: DurationArgument.parse)
    var window = DurationArgument(.seconds(1))

    @Flag(help: "All clients share one budget and cooldown, like concurrent requests in one process (with --clients).")
    var sharedBudget = false

    @Option(help: ArgumentHelp("Write the load chart as SVG to this file (with --clients).", valueName: "file"))
    var svg: String?

    @Option(help: "Output format.")
    var format: OutputFormat = .human

    @OptionGroup var rootOptions: RootOptions

    func validate() throws {
        try request.validate()
        if clients == nil && responses == nil { throw ValidationError("give --responses for one request, or --clients N for a storm") }
        if let clients, clients < 1 || clients > 1_000_000 { throw ValidationError("--clients must be within 1-1000000") }
        if window.value < .milliseconds(1) { throw ValidationError("--window must be at least 1ms") }
        if svg != nil && clients == nil { throw ValidationError("--svg needs --clients") }
        if case .failure(let error) = ScriptedResponse.parse(outageResponse) { throw ValidationError("--outage-response: \(error)") }
        if let responses, case .failure(let error) = ScriptedResponse.parseList(responses) { throw ValidationError("--responses: \(error)") }
    }

    func run() throws {
        let loaded = try PolicyFiles.loadPolicy(policy, root: rootOptions.policyRoot())
        let latency = latency.value
        if let clients {
            try runStorm(policy: loaded, clients: clients, latency: latency)
            return
        }
        let script = try! ScriptedResponse.parseList(responses!).get()
        let timeline = RequestTimeline.simulate(
            policy: loaded, responses: script, seed: seed, latency: latency,
            method: request.httpMethod, markedIdempotent: request.idempotent, endpoint: request.endpoint)
        switch format {
        case .human: StandardOutput.write(TimelineText.render(timeline, policy: loaded, path: policy, seed: seed))
        case .json: StandardOutput.write(TimelineText.json(timeline, policy: loaded, seed: seed).rendered() + "\n")
        }
    }

    func runStorm(policy loaded: Policy, clients: Int, latency: Duration) throws {
        let configuration = OutageStorm.Configuration(
            clients: clients, outage: outage.value,
            outageResponse: try! ScriptedResponse.parse(outageResponse).get(),
            spread: spread.value, latency: latency,
            window: window.value, shared: sharedBudget, seed: seed)
        let storm = OutageStorm.run(policy: loaded, configuration: configuration)
        // The same storm without the breaker, to show what it saves.
        var unbroken: OutageStorm?
        if loaded.breaker != nil {
            var without = loaded
            without.breaker = nil
            unbroken = OutageStorm.run(policy: without, configuration: configuration)
        }
        // And without hedging, to show the load its copies add.
        var unhedged: OutageStorm?
        if loaded.hedging != nil {
            var without = loaded
            without.hedging = nil
            unhedged = OutageStorm.run(policy: without, configuration: configuration)
        }
        if let svg {
            let title = "\(loaded.name): \(clients) clients, \(configuration.outage.formattedForHumans) outage of \(configuration.outageResponse), jitter \(loaded.backoff.jitter.rawValue)"
            do {
                try storm.svg(title: title).write(toFile: svg, atomically: true, encoding: .utf8)
            } catch {
                throw CommandFailure("\(svg): cannot write the chart: \(error.localizedDescription)")
            }
        }
        switch format {
        case .human:
            StandardOutput.write(StormText.render(storm, policy: loaded, withoutBreaker: unbroken, withoutHedging: unhedged))
        case .json:
            StandardOutput.write(
                StormText.json(storm, policy: loaded, withoutBreaker: unbroken, withoutHedging: unhedged).rendered() + "\n")
        }
    }
}

/// Text forms of a single-request timeline.
enum TimelineText {
    static func render(_ timeline: RequestTimeline, policy: Policy, path: String, seed: UInt64) -> String {
        // A hedged request's copies overlap: each row shows when its copy
        // ran, in the order the copies finished.
        let hedged = timeline.attempts.indices.contains { index in
            index > 0 && timeline.attempts[index].start < timeline.attempts[index - 1].start
                || timeline.attempts[index].response.outcome == .transport(.cancelled)
                || (index > 0 && timeline.attempts[index].start < timeline.attempts[index - 1].start + timeline.attempts[index - 1].duration)
        }
        var rows: [[String]] = [["time", "attempt", "response", "decision", "rule"]]
        for attempt in timeline.attempts {
            var decision: String
            switch attempt.decision.action {
            case .success: decision = "success"
            case .retry where hedged:
                decision = attempt.decision.serverDirected
                    ? "next copy in \(shown(attempt.delay ?? .zero)) (server-directed)" : "next copy now"
                decision += " [\(attempt.decision.error?.rawValue ?? "")]"
            case .retry:
                decision = "retry in \(shown(attempt.delay ?? .zero))"
                if let bounds = attempt.decision.delay, bounds.lowerBound != bounds.upperBound {
                    decision += " (drawn from \(DecisionOutline.text(bounds)))"
                } else if attempt.decision.serverDirected {
                    decision += " (server-directed)"
                }
                decision += " [\(attempt.decision.error?.rawValue ?? "")]"
            case .stop:
                decision = "stop: \(attempt.decision.error?.rawValue ?? "") (\(attempt.decision.reason?.rawValue ?? ""))"
            }
            let rule = attempt.decision.rule.map { "\($0.file):\($0.line)" } ?? "-"
            let time = hedged ? "t=\(shown(attempt.start))..\(shown(attempt.start + attempt.duration))" : "t=" + shown(attempt.start)
            rows.append([time, "\(attempt.number)", attempt.response.description, decision, rule])
        }
        var output = "\(policy.name) (\(path)), seed \(seed)\n"
        output += table(rows)
        let result = timeline.result
        switch result.action {
        case .success:
            output += "result: success after \(plural(timeline.attempts.count, "attempt")) in \(shown(timeline.elapsed))\n"
        default:
            output += "result: \(result.error?.rawValue ?? "") (\(result.reason?.rawValue ?? "")) after \(plural(timeline.attempts.count, "attempt")) in \(shown(timeline.elapsed))\n"
        }
        return output
    }

    static func json(_ timeline: RequestTimeline, policy: Policy, seed: UInt64) -> JSONValue {
        .object([
            ("policy", .string(policy.name)),
            ("seed", .int(Int(truncatingIfNeeded: seed))),
            ("attempts", .array(timeline.attempts.map { attempt in
                .object([
                    ("attempt", .int(attempt.number)),
                    ("start_ms", DecisionJSON.milliseconds(attempt.start)),
                    ("response", .string(attempt.response.description)),
                    ("decision", DecisionJSON.value(attempt.decision)),
                    ("delay_ms", attempt.delay.map(DecisionJSON.milliseconds) ?? .null),
                ])
            })),
            ("result", .object([
                ("action", .string(timeline.result.action.rawValue)),
                ("error", .optional(timeline.result.error?.rawValue)),
                ("reason", .optional(timeline.result.reason?.rawValue)),
                ("attempts", .int(timeline.attempts.count)),
                ("elapsed_ms", DecisionJSON.milliseconds(timeline.elapsed)),
            ])),
        ])
    }

    /// A drawn delay to the millisecond: `390ms` reads better than
    /// `0.39s`, and the JSON form keeps the exact value.
    static func shown(_ duration: Duration) -> String {
        Duration.milliseconds(Int64(duration.milliseconds.rounded())).formattedForHumans
    }

    /// Left-aligned columns separated by two spaces.
    static func table(_ rows: [[String]]) -> String {
        guard let columns = rows.first?.count else { return "" }
        let widths = (0..<columns).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == columns - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// Text forms of an outage storm.
enum StormText {
    static let maximumRows = 60

    static func render(
        _ storm: OutageStorm, policy: Policy, withoutBreaker unbroken: OutageStorm? = nil,
        withoutHedging unhedged: OutageStorm? = nil
    ) -> String {
        let configuration = storm.configuration
        var output = "\(policy.name): \(configuration.clients) clients, outage of \(configuration.outage.formattedForHumans) answering \(configuration.outageResponse), "
        output += "jitter \(policy.backoff.jitter.rawValue), \(policy.budget == nil ? "no" : configuration.shared ? "one shared" : "per-client") budget\(policy.breaker == nil ? "" : configuration.shared ? ", one shared breaker" : ", per-client breaker"), seed \(configuration.seed)\n"
        output += "server load: \(storm.totalRequests) requests in total, peak \(storm.peak) per \(configuration.window.formattedForHumans) at \(storm.peakAt.formattedForHumans)"
        output += " (\(formatRatio(storm.totalRequests, configuration.clients)) requests per client)\n"
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
        output += "requests per \(configuration.window.formattedForHumans):\n"
        let width = 40
        let labels = storm.load.indices.map { (configuration.window * $0).formattedForHumans }
        let labelWidth = labels.map(\.count).max() ?? 0
        for (index, count) in storm.load.enumerated().prefix(maximumRows) {
            let bar = storm.peak > 0 ? Int((Double(count) / Double(storm.peak) * Double(width)).rounded(.up)) : 0
            let label = String(repeating: " ", count: labelWidth - labels[index].count) + labels[index]
            output += "  \(label) \(String(repeating: "#", count: bar)) \(count)\n"
        }
        if storm.load.count > maximumRows {
            output += "  ... \(storm.load.count - maximumRows) more windows (use --format json or --svg for all)\n"
        }
        return output
    }

    static func json(
        _ storm: OutageStorm, policy: Policy, withoutBreaker unbroken: OutageStorm? = nil,
        withoutHedging unhedged: OutageStorm? = nil
    ) -> JSONValue {
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
        var breaker: [(String, JSONValue)] = []
        if let unbroken {
            breaker = [("breaker", .object([
                ("outage_requests", .int(storm.outageRequests)),
                ("outage_requests_without_breaker", .int(unbroken.outageRequests)),
                ("periods", .array(storm.breakerPeriods.map { period in
                    .object([
                        ("state", .string(period.state.rawValue)),
                        ("start_ms", DecisionJSON.milliseconds(period.start)),
                        ("end_ms", period.end.map(DecisionJSON.milliseconds) ?? .null),
                    ])
                })),
            ]))]
        }
        return .object([
            ("policy", .string(policy.name)),
            ("clients", .int(configuration.clients)),
            ("outage_ms", DecisionJSON.milliseconds(configuration.outage)),
            ("outage_response", .string(configuration.outageResponse.description)),
            ("seed", .int(Int(truncatingIfNeeded: configuration.seed))),
            ("shared_budget", .bool(configuration.shared)),
            ("window_ms", DecisionJSON.milliseconds(configuration.window)),
            ("total_requests", .int(storm.totalRequests)),
            ("peak_requests", .int(storm.peak)),
            ("peak_at_ms", DecisionJSON.milliseconds(storm.peakAt)),
            ("retry_burst_10ms", .int(storm.retryBurst)),
            ("succeeded", .int(storm.succeeded)),
            ("failed", .object(storm.failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key.rawValue, .int($0.value)) })),
            ("rejected_by_cooldown", .int(storm.rejectedByCooldown)),
            ("finished_at_ms", DecisionJSON.milliseconds(storm.finishedAt)),
            ("load", .array(storm.load.map(JSONValue.int))),
        ] + breaker + hedging)
    }

    static func formatRatio(_ total: Int, _ clients: Int) -> String {
        guard clients > 0 else { return "0" }
        let tenths = Int((Double(total) / Double(clients) * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
