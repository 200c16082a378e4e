#if os(Linux)
import RetryPolicyCore
import Testing

/// Deciding is on every request's path, so it must not touch the heap: the
/// decider promises "no heap allocation and no I/O". These tests hold it to
/// that with a real allocation counter (see ``AllocationCounter``).
@Suite("Decisions allocate nothing", .serialized)
struct DecisionAllocationTests {
    /// A retrying policy shaped like the TMDb client's (seed 000): 429 and
    /// 5xx retried with full-jitter exponential backoff, `Retry-After`
    /// honoured up to a cap, transport failures retried, a shared budget
    /// and a server-directed cooldown.
    static let retrying = Policy(
        name: "tmdb",
        attempts: 4,
        backoff: Backoff(initial: .seconds(1), max: .seconds(30), multiplier: 2, jitter: .full),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), aboveCap: .clamp, cooldown: .wait),
        timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(120)),
        endpoints: ["search": TimeoutBudget(total: .seconds(20))],
        budget: RetryBudgetConfiguration(),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(transports: [.timeout], error: .timeout, action: .retry),
            Rule(transports: [.connectionLost, .offline, .dns, .connectionRefused], error: .networkError, action: .retry),
            Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
            Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            Rule(grpc: [.unavailable, .resourceExhausted], error: .status5xx, action: .retry),
            Rule(grpc: [.notFound], error: .notFound, action: .stop),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )

    /// Seed 004's single-attempt SDK policy.
    static let singleAttempt = Policy(
        name: "sdk-ios",
        platform: "ios",
        attempts: 1,
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(300), aboveCap: .clamp),
        timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(10)),
        rules: [
            Rule(statuses: [.code(200)], action: .success),
            Rule(statuses: [.code(204)], error: .noFill, action: .stop),
            Rule(statuses: [.code(429)], error: .status429, action: .stop),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .stop),
            Rule(transports: [.timeout], error: .timeout, action: .stop),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )

    /// The same retrying rules restricted by method, which turns off the
    /// decider's lookup tables and exercises rule-by-rule matching.
    static let methodSpecific: Policy = {
        var policy = retrying
        policy.rules.insert(Rule(statuses: [.code(409)], methods: [.put], error: .networkError, action: .retry), at: 0)
        return policy
    }()

    /// A realistic mix: mostly 2xx, some rate limiting with every
    /// `Retry-After` form, server errors, client errors and transport
    /// failures, on several attempts, methods and endpoints.
    static let inputs: [DecisionInput] = {
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        let outcomes: [AttemptOutcome] = [
            .status(200), .status(200), .status(200), .status(201), .status(204),
            .response(status: 429, headers: ["Retry-After": "3"]),
            .response(status: 429, headers: ["retry-after": "Tue, 14 Nov 2023 22:13:40 GMT"]),
            .response(status: 429, headers: ["Retry-After": "100000000000000000000"]),
            .response(status: 503, headers: ["Retry-After": "-5"]),
            .status(500), .status(502), .status(401), .status(404), .status(400), .status(0), .status(99999),
            .transport(.timeout), .transport(.connectionLost), .transport(.dns), .transport(.cancelled),
            .transport(.decoding),
            .grpc(.ok), .grpc(.unavailable), .grpc(.notFound), .grpc(.internal),
            .grpc(status: .unavailable, metadata: [GRPCStatusCode.pushbackKey: "250"]),
            .grpc(status: .resourceExhausted, metadata: [GRPCStatusCode.pushbackKey: "-1"]),
            .grpc(status: .unavailable, metadata: [GRPCStatusCode.pushbackKey: "99999999999999"]),
        ]
        var inputs: [DecisionInput] = []
        for outcome in outcomes {
            for attempt in 1...4 {
                for method in [HTTPMethod.get, .post, .put] {
                    inputs.append(
                        DecisionInput(
                            outcome: outcome, attempt: attempt, elapsed: .seconds(attempt * 3), method: method,
                            markedIdempotent: attempt == 2, endpoint: attempt == 3 ? "search" : nil, now: now,
                            previousDelay: attempt > 1 ? .seconds(1) : nil, lastRetryCost: attempt > 1 ? 5 : 0,
                            credentialRefreshes: attempt > 2 ? 1 : 0)
                    )
                }
            }
        }
        return inputs
    }()

    @inline(never)
    static func consume(_ decision: Decision) -> Int {
        decision.ruleIndex ?? -1
    }

    /// Decides every input `rounds` times, returning the allocations made
    /// per decision. The loop reads inputs through an unsafe buffer so that
    /// the loop itself allocates nothing even unoptimized.
    static func allocationsPerDecision(
        with decider: RetryDecider, inputs: [DecisionInput] = inputs, rounds: Int
    ) -> Double {
        var generator = SplitMix64(seed: 42)
        var checksum = 0
        // Warm up: one-time lazy initialisation of globals is not a per-
        // decision cost.
        for input in inputs { checksum &+= consume(decider.decide(input, using: &generator)) }
        let allocations = inputs.withUnsafeBufferPointer { buffer in
            AllocationCounter.allocations {
                for _ in 0..<rounds {
                    for index in 0..<buffer.count {
                        checksum &+= consume(decider.decide(buffer[index], using: &generator))
                        _ = decider.admit(now: buffer[index].now!)
                    }
                }
            }
        }
        #expect(checksum != 0)
        return Double(allocations) / Double(rounds * inputs.count)
    }

    /// The promise holds for optimized builds, the ones that ship. An
    /// unoptimized (debug) build calls the standard library's generic,
    /// unspecialized accessors, whose coroutine frames and closure boxes
    /// land on the heap; there only the 2xx path, the one most requests
    /// take, is held to zero, and the rest to a small constant, so that a
    /// regression allocating per rule or per header still fails here.
    #if DEBUG
    static let unoptimizedBound = 16.0
    static func expectNoAllocation(_ perDecision: Double, _ comment: Comment) {
        #expect(perDecision <= unoptimizedBound, comment)
    }
    #else
    static func expectNoAllocation(_ perDecision: Double, _ comment: Comment) {
        #expect(perDecision == 0, comment)
    }
    #endif

    @Test("The counter sees allocations, so a zero below means something")
    func counterDetectsAllocations() {
        final class Box { var value = 0 }
        var boxes: [Box] = []
        let allocations = AllocationCounter.allocations {
            for _ in 0..<10 { boxes.append(Box()) }
        }
        #expect(boxes.count == 10)
        #expect(allocations >= 10)
        let none = AllocationCounter.allocations { boxes[0].value += 1 }
        #expect(none == 0)
    }

    @Test("Successful responses decide without allocating, even unoptimized")
    func successPath() {
        let successes = Self.inputs.filter {
            if case .response(let status, _) = $0.outcome { return (200...299).contains(status) && status != 204 }
            return false
        }
        #expect(successes.count >= 40)
        // Policies without method-specific rules, whose matching is a table
        // lookup (rule-by-rule matching hashes method names, which
        // allocates when unoptimized).
        for policy in [Self.retrying, Self.singleAttempt] {
            let decider = RetryDecider(policy: policy)
            #expect(Self.allocationsPerDecision(with: decider, inputs: successes, rounds: 50) == 0, "\(policy.name)")
        }
    }

    @Test("A retrying policy decides without allocating")
    func retryingPolicy() {
        let decider = RetryDecider(policy: Self.retrying)
        Self.expectNoAllocation(Self.allocationsPerDecision(with: decider, rounds: 20), "retrying policy")
    }

    @Test("A single-attempt policy decides without allocating")
    func singleAttemptPolicy() {
        let decider = RetryDecider(policy: Self.singleAttempt)
        Self.expectNoAllocation(Self.allocationsPerDecision(with: decider, rounds: 20), "single-attempt policy")
    }

    @Test("Method-specific rules, matched rule by rule, decide without allocating")
    func methodSpecificPolicy() {
        let decider = RetryDecider(policy: Self.methodSpecific)
        Self.expectNoAllocation(Self.allocationsPerDecision(with: decider, rounds: 20), "method-specific rules")
    }

    /// gRPC outcomes read their pushback from metadata: deciding one costs
    /// no more allocations than deciding the same failure as an HTTP
    /// response with a Retry-After (none, optimized), also in a debug build,
    /// where the rest of the retry path allocates.
    @Test("gRPC outcomes with pushback decide with no more allocations than HTTP responses with Retry-After")
    func grpcPushback() {
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        func inputs(_ outcomes: [AttemptOutcome]) -> [DecisionInput] {
            outcomes.flatMap { outcome in
                (1...3).map { DecisionInput(outcome: outcome, attempt: $0, method: .get, now: now) }
            }
        }
        let grpc = inputs([
            .grpc(status: .unavailable, metadata: [GRPCStatusCode.pushbackKey: "3000"]),
            .grpc(status: .resourceExhausted, metadata: [GRPCStatusCode.pushbackKey: "-1"]),
            .grpc(status: .unavailable, metadata: ["other": "x", GRPCStatusCode.pushbackKey: "250"]),
        ])
        let http = inputs([
            .response(status: 503, headers: ["Retry-After": "3"]),
            .response(status: 503, headers: ["Retry-After": "-1"]),
            .response(status: 503, headers: ["other": "x", "Retry-After": "1"]),
        ])
        var policy = Self.retrying
        policy.budget = nil
        policy.retryAfter.cooldown = .off
        let decider = RetryDecider(policy: policy)
        let grpcAllocations = Self.allocationsPerDecision(with: decider, inputs: grpc, rounds: 20)
        let httpAllocations = Self.allocationsPerDecision(with: decider, inputs: http, rounds: 20)
        #expect(grpcAllocations <= httpAllocations, "gRPC \(grpcAllocations), HTTP \(httpAllocations) per decision")
        Self.expectNoAllocation(grpcAllocations, "gRPC pushback")
    }

    /// Reading the pushback is the part of a gRPC decision the HTTP path
    /// does not exercise: held to zero on its own when optimized, and to
    /// the header lookup's cost when not.
    @Test("Reading grpc-retry-pushback-ms from metadata allocates nothing beyond the header lookup")
    func pushbackReading() {
        let metadata: [ResponseHeaders] = [
            [GRPCStatusCode.pushbackKey: "3000"], [GRPCStatusCode.pushbackKey: "-1"], ["Grpc-Retry-Pushback-Ms": " 250 "],
            [GRPCStatusCode.pushbackKey: "99999999999999999999"], ["other": "x"], [GRPCStatusCode.pushbackKey: "1.5"],
        ]
        var stops = 0
        for entry in metadata { if case .stop? = GRPCPushback(in: entry) { stops += 1 } }
        let allocations = metadata.withUnsafeBufferPointer { buffer in
            AllocationCounter.allocations {
                for _ in 0..<50 {
                    for index in 0..<buffer.count {
                        if case .stop? = GRPCPushback(in: buffer[index]) { stops += 1 }
                    }
                }
            }
        }
        #expect(stops == 3 * 51)
        // Unoptimized, the header lookup's generic iteration costs one
        // allocation per read (as it does for a Retry-After); a regression
        // that copies the value or the metadata adds more and fails here.
        #if DEBUG
        #expect(allocations <= 50 * metadata.count, "\(allocations) allocations for \(50 * metadata.count) reads")
        #else
        #expect(allocations == 0)
        #endif
    }

    @Test("A drained budget and an active cooldown still decide without allocating")
    func drainedBudgetAndCooldown() {
        var policy = Self.retrying
        policy.budget = RetryBudgetConfiguration(capacity: 10, retryCost: 5, timeoutRetryCost: 10, successRefund: 0)
        policy.retryAfter.cooldown = .reject
        let decider = RetryDecider(policy: policy)
        Self.expectNoAllocation(Self.allocationsPerDecision(with: decider, rounds: 5), "drained budget, cooldown")
        #expect(decider.budget?.available == 0)
    }
}
#endif
