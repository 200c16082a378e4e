import PropertyBased
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicySimulation
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing

/// The executor on a manual clock and the simulator (`retry-policy
/// simulate`, `retry-policy test`) must tell the same story for any policy
/// and any server: the same attempts at the same instants, the same waits
/// for the same reasons, the same outcome. Policies and scripts are built
/// from small integers, so a failure shrinks towards the simplest policy
/// and the shortest script that still disagree.
@Suite("Executor and simulator agree", .shrinking(true))
struct ExecutorSimulatorAgreementTests {
    // MARK: Random policies, requests and servers

    static let origin = RequestTimeline.origin

    /// The policies of these properties: every backoff shape and jitter,
    /// Retry-After handling, timeouts per request and per endpoint,
    /// idempotency, budgets of every style, rule tables in any order, and
    /// breakers small enough to open, half-open and close within a request.
    static let generator: PolicyGenerator = {
        var generator = PolicyGenerator()
        generator.attempts = 1...5
        generator.initialDelay = .oneOf([100, 1, 50, 250, 1000])
        generator.maxDelay = .times(.oneOf([1, 2, 4, 10]))
        generator.multipliers = [1.0, 2.0, 1.5]
        generator.linearStep = .fractionsOfInitial([0.5, 0])
        generator.jitters = [.none, .full, .equal, .decorrelated]
        generator.retryAfterCaps = [.seconds(2), nil, .seconds(5), .milliseconds(500)]
        generator.perAttemptTimeout = .oneOf([nil, .milliseconds(200), .seconds(1), .milliseconds(50)])
        generator.totalTimeout = .oneOf([nil, .seconds(2), .seconds(5), .milliseconds(700)])
        generator.endpoint = .drawn("search")
        generator.idempotencies = [Idempotency(), Idempotency(retryableMethods: [.get, .post]), Idempotency(honorIdempotentRequests: false)]
        generator.budget = .oneOf([
            nil, RetryBudgetConfiguration(capacity: 20, retryCost: 5, timeoutRetryCost: 10, successRefund: 1), nil,
            RetryBudgetConfiguration(capacity: 5, retryCost: 5, timeoutRetryCost: 5, successRefund: 0), nil,
            RetryBudgetConfiguration(capacity: 0), .awsStandard2026,
            RetryBudgetConfiguration(capacity: 19, retryCost: 14, timeoutRetryCost: 14, throttlingRetryCost: 5, successRefund: 1),
            .grpc(maxTokens: 3, tokenRatioThousandths: 500), .grpc(maxTokens: 10, tokenRatioThousandths: 100),
        ])
        generator.rules = .templates(
            [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
                Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(transports: [.connectionLost], error: .networkError, action: .retry),
                Rule(statuses: [.code(503)], methods: [.post], error: .status5xx, action: .stop),
                Rule(statuses: [.code(404)], action: .success),
                Rule(statuses: [.range(500...599)], methods: [.get], error: .status5xx, action: .retry, honorRetryAfter: false),
            ],
            defaults: [DefaultRule(error: .internalError, action: .stop), DefaultRule(error: .networkError, action: .retry), nil])
        generator.breaker = .random
        // Delays of whole milliseconds plus a nanosecond: an instant a
        // timer sets never coincides with one an answer sets.
        generator.hedgingDelays = [50, 120, 300, 20].map { .milliseconds($0) + .nanoseconds(1) }
        generator.hedgingMethods = [nil, [.get, .put], [.get, .post]]
        return generator
    }()

    /// How many genes a case draws: the request's three, then the policy's.
    static let geneCount = 40

    /// A policy from `genes` (after the request's); gene value 0 gives the
    /// simplest choice.
    static func policy(_ genes: [Int], hedged: Bool = false) -> Policy {
        var generator = Self.generator
        if hedged { generator.hedging = .always }
        return generator.policy(genes: Array(genes.dropFirst(3)))
    }

    static func request(_ genes: [Int]) -> RetryRequest {
        RetryRequest(
            method: [HTTPMethod.get, .post, .put][genes[0] % 3], markedIdempotent: genes[1] % 2 == 1,
            endpoint: [nil, "search"][genes[2] % 2])
    }

    /// What the server does on one attempt, and how long it takes. A
    /// `timeout` never answers on its own (it runs into the attempt's time
    /// limit, or takes a day); other latencies are whole milliseconds plus
    /// one microsecond, so that an answer never arrives at the very instant
    /// a limit expires.
    struct Step: Sendable, CustomStringConvertible {
        var response: ScriptedResponse
        var latency: Duration
        var description: String { "\(response) in \(latency)" }
    }

    static func step(_ code: Int) -> Step {
        let argument = (code / 12) % 10
        let outcome: AttemptOutcome
        switch code % 12 {
        case 0: outcome = .status(200)
        case 1: outcome = .status(503)
        case 2: outcome = .response(status: 429, headers: ["Retry-After": "\(argument % 8)"])
        case 3: outcome = .response(status: 503, headers: ["Retry-After": "Wed, 01 Jan 2025 00:00:0\(argument) GMT"])
        case 4: outcome = .response(status: 429, headers: ["Retry-After": "60"])
        case 5: outcome = .status(500)
        case 6: outcome = .status(401)
        case 7: outcome = .status(404)
        case 8: outcome = .transport(.timeout)
        case 9: outcome = .transport(.connectionLost)
        case 10: outcome = .status(201)
        default: outcome = .response(status: 429, headers: ["Retry-After": "0"])
        }
        let latency: Duration =
            outcome == .transport(.timeout) ? .seconds(86_400) : .milliseconds((code / 120) % 400 + 1) + .microseconds(1)
        return Step(response: ScriptedResponse(outcome: outcome), latency: latency)
    }

    // MARK: One timeline, two ways

    /// What both tell: attempts, waits and the end, on one timeline.
    struct Story: Equatable, CustomStringConvertible {
        enum Entry: Equatable {
            case attempt(number: Int, start: Duration, end: Duration, outcome: AttemptOutcome, decision: DecisionOutline)
            case wait(start: Duration, duration: Duration, reason: WaitReason)
        }

        var entries: [Entry] = []
        var succeeded = false
        var error: SDKError.Kind?
        var reason: StopReason?
        var attempts = 0
        var elapsed = Duration.zero

        var description: String {
            var lines = entries.map { entry in
                switch entry {
                case .attempt(let number, let start, let end, let outcome, let decision):
                    "  attempt \(number) \(start)...\(end) \(outcome) -> \(decision)"
                case .wait(let start, let duration, let reason):
                    "  wait \(duration) (\(reason)) at \(start)"
                }
            }
            lines.append(
                succeeded
                    ? "  success after \(attempts) in \(elapsed)"
                    : "  \(error?.rawValue ?? "?") (\(reason?.rawValue ?? "?")) after \(attempts) in \(elapsed)")
            return lines.joined(separator: "\n")
        }
    }

    static func simulated(_ policy: Policy, _ request: RetryRequest, _ script: [Step], seed: UInt64) -> Story {
        let timeline = RequestTimeline.simulate(
            policy: policy, responses: script.map { ($0.response, $0.latency) }, seed: seed, method: request.method,
            markedIdempotent: request.markedIdempotent, endpoint: request.endpoint)
        var story = Story()
        var waits = timeline.waits[...]
        for attempt in timeline.attempts {
            while let wait = waits.first, wait.start < attempt.start {
                story.entries.append(.wait(start: wait.start, duration: wait.duration, reason: wait.reason))
                waits = waits.dropFirst()
            }
            story.entries.append(
                .attempt(
                    number: attempt.number, start: attempt.start, end: attempt.start + attempt.duration,
                    outcome: attempt.response.outcome, decision: attempt.decision))
        }
        for wait in waits { story.entries.append(.wait(start: wait.start, duration: wait.duration, reason: wait.reason)) }
        story.succeeded = timeline.result.action == .success
        story.error = timeline.result.error
        story.reason = timeline.result.reason
        story.attempts = timeline.attempts.count
        story.elapsed = timeline.elapsed
        return story
    }

    /// The executor's events, in order, and a way to await the next one.
    final class EventFeed: Sendable {
        private struct State {
            var events: [(RetryEvent, Duration)] = []
            var consumed = 0
            var waiter: CheckedContinuation<(RetryEvent, Duration), Never>?
            var arrivalWaiter: CheckedContinuation<Void, Never>?
        }
        private let state = LockedValue(State())

        func append(_ event: RetryEvent, at now: Duration) {
            typealias Waiters = (CheckedContinuation<(RetryEvent, Duration), Never>?, CheckedContinuation<Void, Never>?)
            let (waiter, arrival) = state.withLock { state -> Waiters in
                state.events.append((event, now))
                let arrival = state.arrivalWaiter
                state.arrivalWaiter = nil
                guard let waiter = state.waiter else { return (nil, arrival) }
                state.waiter = nil
                state.consumed += 1
                return (waiter, arrival)
            }
            waiter?.resume(returning: (event, now))
            arrival?.resume()
        }

        /// Whether an event waits to be read.
        var hasUnread: Bool { state.withLock { $0.consumed < $0.events.count } }

        /// Returns once an event waits to be read, or as soon as the calling
        /// task is cancelled.
        func unreadEvent() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state in
                        if Task.isCancelled || state.consumed < state.events.count { return true }
                        state.arrivalWaiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { state in
                    defer { state.arrivalWaiter = nil }
                    return state.arrivalWaiter
                }
                waiter?.resume()
            }
        }

        func next() async -> (RetryEvent, Duration) {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> (RetryEvent, Duration)? in
                    if state.consumed < state.events.count {
                        state.consumed += 1
                        return state.events[state.consumed - 1]
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    struct ScriptedServer: Sendable {
        var script: [Step]
        var clock: ManualClock

        @Sendable func attempt(_ context: AttemptContext) async throws -> ScriptedHTTPResponse {
            let step = script[min(context.attempt - 1, script.count - 1)]
            try await clock.sleep(for: step.latency)
            switch step.response.outcome {
            case .response(let status, let headers): return ScriptedHTTPResponse(statusCode: status, headers: headers)
            case .transport(let failure): throw TransportError(failure)
            case .condition, .grpc: throw Classified(attemptOutcome: step.response.outcome)
            }
        }
    }

    struct Classified: AttemptOutcomeConvertible {
        var attemptOutcome: AttemptOutcome
    }

    struct ScriptedHTTPResponse: RetryableResponse {
        var statusCode: Int
        var headers: ResponseHeaders
        func headerValue(named name: String) -> String? { headers[name] }
    }

    /// The executor's story of the request, or `nil` for a hedged request
    /// in which two things happened at one instant (two sleepers due
    /// together, or the executor going on without the clock moving): their
    /// order is the scheduler's, so there is no one story to compare.
    /// - Parameter inCallerTask: run through `run`, which performs every
    ///   attempt in the calling task, rather than `runConcurrently`.
    static func executed(
        _ policy: Policy, _ request: RetryRequest, _ script: [Step], seed: UInt64, inCallerTask: Bool = false
    ) async -> Story? {
        let clock = ManualClock()
        let feed = EventFeed()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin,
            refreshCredentials: {}, observer: { feed.append($0, at: clock.now.offset) })
        let server = ScriptedServer(script: script, clock: clock)
        let task = Task {
            var generator = SplitMix64(seed: seed)
            if inCallerTask {
                _ = try? await executor.run(request, using: &generator) { context in try await server.attempt(context) }
            } else {
                _ = try? await executor.runConcurrently(request, using: &generator, operation: server.attempt)
            }
        }
        let timeouts = policy.timeouts(for: request.endpoint)
        let timed = timeouts.perAttempt != nil || timeouts.total != nil
        let hedged =
            policy.hedging?.applies(
                to: request.method, markedIdempotent: request.markedIdempotent, idempotency: policy.idempotency) ?? false
        // A hedged request's attempts in flight; each step of it ends with
        // a `nextHedge` event, once every copy and the timer are asleep.
        var inFlight = 0
        var story = Story()
        // In a hedged request: waits until `count` tasks sleep and nothing
        // else is under way, then moves to the next deadline. False, with
        // the request cancelled, when something happened at one instant
        // with something else: an event came without the clock moving, or
        // two sleepers are due together.
        func advanceHedged(once count: Int) async -> Bool {
            let asleep = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await clock.sleepers(atLeast: count)
                    return true
                }
                group.addTask {
                    await feed.unreadEvent()
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            guard asleep, !feed.hasUnread, clock.sleepersAtNextDeadline == 1 else {
                task.cancel()
                await task.value
                return false
            }
            clock.advanceToNextDeadline()
            return true
        }
        // Each attempt or wait is one or two sleepers (an attempt with a
        // time limit races a timer); once they are all asleep, the earliest
        // deadline is the next thing that happens.
        loop: while true {
            let (event, now) = await feed.next()
            switch event {
            case .attemptStarted:
                if hedged {
                    inFlight += 1
                } else {
                    await clock.sleepers(atLeast: timed ? 2 : 1)
                    clock.advanceToNextDeadline()
                }
            case .nextHedge(let next):
                guard await advanceHedged(once: inFlight * (timed ? 2 : 1) + (next == nil ? 0 : 1)) else { return nil }
            case .attemptFinished(let record):
                inFlight -= 1
                story.entries.append(
                    .attempt(
                        number: record.number, start: record.startedAt, end: record.startedAt + record.duration,
                        outcome: record.outcome, decision: DecisionOutline(record.decision, policy: policy)))
            case .waiting(let duration, let cause):
                story.entries.append(.wait(start: now, duration: duration, reason: cause))
                if hedged {
                    guard await advanceHedged(once: 1) else { return nil }
                } else {
                    await clock.sleepers(atLeast: 1)
                    clock.advanceToNextDeadline()
                }
            case .refreshingCredentials, .circuitBreaker:
                break
            case .succeeded(let attempts, let elapsed):
                story.succeeded = true
                story.attempts = attempts
                story.elapsed = elapsed
                break loop
            case .failed(let error, let reason, let attempts, let elapsed):
                story.error = error.kind
                story.reason = reason
                story.attempts = attempts
                story.elapsed = elapsed
                break loop
            }
        }
        await task.value
        return story
    }

    @Test("the same attempts at the same instants, the same waits and the same end, for any policy and server")
    func executorAndSimulatorAgree() async {
        // How many generated cases a breaker ended: the property must reach
        // the breaker's states, not only policies without one.
        let circuitOpen = LockedValue(0)
        defer { #expect(circuitOpen.withLock { $0 } > 0, "no generated case ended with circuit_open") }
        await propertyCheck(
            count: 2_000,
            input: Gen.int(in: 0...1_000).array(of: Self.geneCount), Gen.int(in: 0...100_000).array(of: 1...6), Gen.uint64()
        ) { genes, codes, seed in
            let policy = Self.policy(genes)
            let request = Self.request(genes)
            let script = codes.map(Self.step)
            let simulated = Self.simulated(policy, request, script, seed: seed)
            let executed = await Self.executed(policy, request, script, seed: seed)
            if simulated.reason == .circuitOpen { circuitOpen.withLock { $0 += 1 } }
            #expect(
                executed == simulated,
                "\(policy.name): \(request.method) \(script)\nexecutor:\n\(executed.map { "\($0)" } ?? "none")\nsimulator:\n\(simulated)\npolicy: \(policy)")
        }
    }
    @Test("run, attempts in the caller's task: the same story as the simulator for every policy it runs alike")
    func inCallerTaskExecutorAndSimulatorAgree() async {
        await propertyCheck(
            count: 1_000,
            input: Gen.int(in: 0...1_000).array(of: Self.geneCount), Gen.int(in: 0...100_000).array(of: 1...6), Gen.uint64()
        ) { genes, codes, seed in
            // `run` cannot interrupt an attempt or run copies side by side:
            // time limits and hedging are `runConcurrently`'s (and the
            // property above's), so the generated policies go without.
            var policy = Self.policy(genes)
            policy.timeouts = TimeoutBudget()
            policy.endpoints = [:]
            policy.hedging = nil
            let request = Self.request(genes)
            let script = codes.map(Self.step)
            let simulated = Self.simulated(policy, request, script, seed: seed)
            let executed = await Self.executed(policy, request, script, seed: seed, inCallerTask: true)
            #expect(
                executed == simulated,
                "\(policy.name): \(request.method) \(script)\nrun:\n\(executed.map { "\($0)" } ?? "none")\nsimulator:\n\(simulated)\npolicy: \(policy)")
        }
    }

    // MARK: Hedging

    /// The script with one step per attempt (the last repeated) and
    /// attempt *k*'s latency made distinct by 2^k microseconds on top of
    /// its milliseconds. An instant is then the sum of the latencies and
    /// delays that led to it, and which ones can be read off its
    /// microseconds and nanoseconds, so two events of one request never
    /// fall at the same instant by chance: which of two events at one
    /// instant comes first is up to the scheduler in the executor.
    static func distinct(_ script: [Step], attempts: Int) -> [Step] {
        (0..<max(attempts, script.count)).map { index in
            var step = script[min(index, script.count - 1)]
            if step.response.outcome != .transport(.timeout) { step.latency += .microseconds(2 << index) }
            return step
        }
    }

    @Test("hedged requests: the same copies at the same instants, the same winner and the same end")
    func hedgedExecutorAndSimulatorAgree() async {
        // The property must reach what hedging adds: copies overlapping,
        // a later copy winning, losers cancelled.
        let coverage = LockedValue((overlapping: 0, laterWinner: 0, cancelled: 0, ties: 0))
        defer {
            let seen = coverage.withLock { $0 }
            print("hedged agreement: \(seen.ties) of 800 cases left out for events at one instant")
            #expect(seen.ties < 80, "more than one generated case in ten had two events at one instant")
            #expect(seen.overlapping > 0, "no generated case ran two copies at once")
            #expect(seen.laterWinner > 0, "no generated case was won by a later copy")
            #expect(seen.cancelled > 0, "no generated case cancelled a copy")
        }
        await propertyCheck(
            count: 800,
            input: Gen.int(in: 0...1_000).array(of: Self.geneCount), Gen.int(in: 0...100_000).array(of: 1...6), Gen.uint64()
        ) { genes, codes, seed in
            let policy = Self.policy(genes, hedged: true)
            let request = Self.request(genes)
            let script = Self.distinct(codes.map(Self.step), attempts: policy.attempts)
            let simulated = Self.simulated(policy, request, script, seed: seed)
            var attempts: [(start: Duration, end: Duration, number: Int, outcome: AttemptOutcome)] = []
            for case .attempt(let number, let start, let end, let outcome, _) in simulated.entries {
                attempts.append((start, end, number, outcome))
            }
            // Two events of one request at one instant (copies cut by the
            // total deadline all end at it; a timer armed at t ends with a
            // copy started at t - delay whose time limit is as long as the
            // delay, d + p = p + d): the simulator takes them in a fixed
            // order, the executor in whichever order the scheduler runs its
            // tasks, and either is right. The executor's run meets them as
            // they happen and leaves such a case out (counted).
            guard let executed = await Self.executed(policy, request, script, seed: seed) else {
                coverage.withLock { $0.ties += 1 }
                return
            }
            coverage.withLock { seen in
                if attempts.contains(where: { a in attempts.contains { $0.number != a.number && $0.start < a.end && a.start < $0.end } }) {
                    seen.overlapping += 1
                }
                if simulated.succeeded, let last = attempts.last, last.number > 1, attempts.contains(where: { $0.number < last.number && $0.end >= last.end }) {
                    seen.laterWinner += 1
                }
                if attempts.contains(where: { $0.outcome == .transport(.cancelled) }) { seen.cancelled += 1 }
            }
            #expect(
                executed == simulated,
                "\(policy.name): \(request.method) \(script)\nexecutor:\n\(executed)\nsimulator:\n\(simulated)\npolicy: \(policy)")
        }
    }
}
