import ArgumentParser
import Foundation
import RetryPolicyYAML
import RetryPolicyCore
import RetryPolicySimulation
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

    @OptionGroup var writeOptions: WriteOptions

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
        let root = try rootOptions.policyRoot()
        let loaded = try PolicyFiles.loadPolicy(policy, root: root)
        let latency = latency.value
        if let clients {
            try runStorm(policy: loaded, clients: clients, latency: latency, root: root)
            return
        }
        let script = try! ScriptedResponse.parseList(responses!).get()
        let timeline = RequestTimeline.simulate(
            policy: loaded, responses: script, seed: seed, latency: latency,
            method: request.httpMethod, markedIdempotent: request.idempotent, endpoint: request.endpoint)
        switch format {
        case .human: StandardOutput.write(timeline.text(policy: loaded, path: policy, seed: seed))
        case .json: StandardOutput.write(timeline.json(policy: loaded, seed: seed).rendered() + "\n")
        }
    }

    func runStorm(policy loaded: Policy, clients: Int, latency: Duration, root: PolicyRoot) throws {
        let configuration = OutageStorm.Configuration(
            clients: clients, outage: outage.value,
            outageResponse: try! ScriptedResponse.parse(outageResponse).get(),
            spread: spread.value, latency: latency,
            window: window.value, shared: sharedBudget, seed: seed)
        let report = StormReport.run(policy: loaded, configuration: configuration)
        if let svg {
            try OutputFiles.write(report.svg, to: svg, root: root, force: writeOptions.force)
        }
        switch format {
        case .human: StandardOutput.write(report.text)
        case .json: StandardOutput.write(report.json.rendered() + "\n")
        }
    }
}
