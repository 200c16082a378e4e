import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyYAML
import RetryPolicyCommandSupport

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded traffic under a policy, and beside a baseline policy.",
        discussion: """
            What would this policy have done in last Tuesday's outage? Each recorded request is \
            replayed as a client under the policy, on simulated time, through the engine simulate \
            uses; its retries draw, seeded, from what the upstream answered at that time in the \
            recording. One budget, breaker and cooldown act across all requests, as for a fleet that \
            shares them; every report says so. A recording whose format cannot hold the Retry-After \
            header a policy honours (Envoy's default access log, an nginx log_format without \
            $sent_http_retry_after) is warned about in the report.
              retry-policy replay --policy new.yaml --baseline old.yaml access.log
              retry-policy replay --policy new.yaml --fail-if 'amplification>2' --fail-if 'success-rate-drop>1' session.har

            Recordings: HAR 1.2, nginx access logs (combined, ingress-nginx's upstreaminfo, or \
            --nginx-log-format), Envoy's default access log, or JSONL (docs/replay.md). The format \
            is told from the content unless --format names it. Lines that cannot be read are \
            warnings (file:line:column) on standard error; only the fields replay uses are kept.

            Exit status: 0 replayed and no --fail-if condition holds; 1 a condition holds or a \
            policy is invalid; 2 usage or I/O error (no readable requests among the recordings).
            """)

    @Option(help: ArgumentHelp("The policy to replay the traffic under.", valueName: "file"))
    var policy: String

    @Option(help: ArgumentHelp("A policy to compare with (the one in production).", valueName: "file"))
    var baseline: String?

    @Argument(help: "Recorded traffic files (- reads standard input).")
    var traffic: [String] = []

    @Option(help: "The recordings' format (default: told from each file's content).")
    var format: TrafficFormatArgument?

    @Option(name: .customLong("nginx-log-format"), help: ArgumentHelp("The nginx log_format the access logs were written with.", valueName: "format"))
    var nginxLogFormat: String?

    @Option(name: .customLong("fail-if"), help: ArgumentHelp("Exit 1 when this holds: METRIC>VALUE, METRIC<VALUE (>=, <= too); repeatable. Metrics: \(FailCondition.Metric.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "condition"))
    var failIf: [String] = []

    @Option(help: "Seed for the jitter and the draws from the recording.")
    var seed: UInt64 = 1

    @Option(help: "Width of one bucket of the upstream's recorded behaviour (default: 1s).", transform: DurationArgument.parse)
    var bucket = DurationArgument(.seconds(1))

    @Option(help: "Width of one window of the load counts (default: 1s).", transform: DurationArgument.parse)
    var window = DurationArgument(.seconds(1))

    @Option(name: .customLong("reorder-window"), help: "How far out of time order records may be written and still be sorted (default: 2m).", transform: DurationArgument.parse)
    var reorderWindow = DurationArgument(.seconds(120))

    @Option(help: ArgumentHelp("Write the load over time as SVG to this file.", valueName: "file"))
    var svg: String?

    @OptionGroup var writeOptions: WriteOptions

    @Option(help: "Report format.")
    var report: ReplayReportFormat = .human

    @OptionGroup var rootOptions: RootOptions

    func validate() throws {
        if traffic.isEmpty { throw ValidationError("name at least one recorded traffic file") }
        if traffic.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read once") }
        if bucket.value < .milliseconds(1) { throw ValidationError("--bucket must be at least 1ms") }
        if window.value < .milliseconds(1) { throw ValidationError("--window must be at least 1ms") }
        if traffic.contains("-") && baseline != nil {
            throw ValidationError("--baseline replays the recordings twice; standard input can be read only once, so name a file")
        }
        for condition in failIf {
            if case .failure(let error) = FailCondition.parse(condition) { throw ValidationError("--fail-if '\(condition)': \(error)") }
        }
        if let nginxLogFormat, case .failure(let error) = NginxLogFormat.parse(nginxLogFormat) {
            throw ValidationError("--nginx-log-format: \(error)")
        }
    }

    func run() throws {
        let root = try rootOptions.policyRoot()
        let loaded = try PolicyFiles.loadPolicy(policy, root: root)
        let base = try baseline.map { try PolicyFiles.loadPolicy($0, root: root) }
        var kept = Set(loaded.retryAfter.headers.map { $0.name.lowercased() })
        for header in base?.retryAfter.headers ?? [] { kept.insert(header.name.lowercased()) }
        let options = RecordingOptions(
            keptHeaders: kept, nginxFormat: nginxLogFormat.map { try! NginxLogFormat.parse($0).get() },
            reorderWindow: reorderWindow.value)
        let conditions = failIf.map { try! FailCondition.parse($0).get() }
        let configuration = ReplayDriver.Configuration(bucket: bucket.value, window: window.value, seed: seed)

        let (run, inputs) = try replay(loaded, root: root, options: options, configuration: configuration, reportWarnings: true)
        guard run.requests > 0 else {
            throw CommandFailure("no recorded requests could be read from \(traffic.map { DisplayText.escaped($0) }.joined(separator: ", "))")
        }
        let baselineRun = try base.map {
            try replay($0, root: root, options: options, configuration: configuration, reportWarnings: false).0
        }
        let result = ReplayReport(run: run, baseline: baselineRun, inputs: inputs, seed: seed, conditions: conditions)
        if let svg {
            try OutputFiles.write(result.svg, to: svg, root: root, force: writeOptions.force)
        }
        switch report {
        case .human: StandardOutput.write(result.text)
        case .json: StandardOutput.write(result.json.rendered() + "\n")
        case .markdown: StandardOutput.write(result.markdown)
        }
        if !result.failedConditions.isEmpty { throw ExitCodeError(status: ExitStatus.findings) }
    }

    /// One pass over the recordings under `policy`, each read through
    /// `root`; the warnings go to standard error on the first pass only.
    private func replay(
        _ policy: Policy, root: PolicyRoot, options: RecordingOptions, configuration: ReplayDriver.Configuration,
        reportWarnings: Bool
    ) throws -> (ReplayRun, [ReplayReport.Input]) {
        let streams = try traffic.map { path in
            RecordingStream(path: path, format: format?.value, options: options, read: try TrafficFiles.chunks(of: path, root: root))
        }
        var records = TimeOrderedRecords(streams: streams, window: options.reorderWindow)
        let run: ReplayRun
        do {
            run = try ReplayDriver.run(policy: policy, configuration: configuration) { try records.next() }
        } catch let error as ReplayInputError {
            throw CommandFailure(error.description)
        }
        if reportWarnings {
            for warning in records.warnings { StandardError.write(warning.indentedDescription + "\n") }
            let shown = records.warnings.count
            if records.warningCount > shown {
                StandardError.write("warning: \(records.warningCount - shown) more lines could not be read (the first \(RecordingStream.maximumKeptWarnings) of each file are shown)\n")
            }
        }
        let inputs = records.streams.map { stream in
            ReplayReport.Input(
                path: stream.path, format: stream.format, requests: stream.recordCount, warnings: stream.warningCount,
                carriesServerDelays: stream.format?.carries(anyOf: options.keptHeaders, nginxFormat: options.nginxFormat) ?? true)
        }
        return (run, inputs)
    }
}

enum ReplayReportFormat: String, ExpressibleByArgument, CaseIterable {
    case human, json, markdown
}

struct TrafficFormatArgument: ExpressibleByArgument {
    var value: TrafficFormat

    init?(argument: String) {
        guard let format = TrafficFormat(rawValue: argument) else { return nil }
        value = format
    }

    static var allValueStrings: [String] { TrafficFormat.allCases.map(\.rawValue) }
}
