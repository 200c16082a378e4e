import PropertyBased
import RetryPolicyCore
import Testing

/// The ratio budget: deposits per request, withdrawals per retry, both
/// expiring after the window, and the reserve of the minimum rate.
@Suite struct RatioBudgetTests {
    static func policy(_ ratio: RatioRetryBudget, attempts: Int = 1000) -> Policy {
        Policy(
            name: "ratio", attempts: attempts, budget: .ratio(ratio),
            rules: [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)])
    }

    static func at(milliseconds: Int64) -> Timestamp {
        Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000 + milliseconds * 1_000_000)
    }

    /// Decides a 503 at `milliseconds`: whether the budget paid a retry.
    static func retries(_ decider: RetryDecider, at milliseconds: Int64) -> Bool {
        var generator = SplitMix64(seed: 1)
        let decision = decider.decide(
            DecisionInput(outcome: .status(503), attempt: 1, now: at(milliseconds: milliseconds)), using: &generator)
        if case .retry = decision.action { return true }
        return false
    }

    @Test("Presets: Finagle's and the Gateway API's 20 %, 10/s, 10 s; Envoy's 20 %, 3/s over 1 s")
    func presets() {
        #expect(RatioRetryBudget.finagle == RatioRetryBudget(permille: 200, minRetriesPerSecond: 10, window: .seconds(10)))
        #expect(RatioRetryBudget.gatewayAPI == RatioRetryBudget(permille: 200, minRetriesPerSecond: 10, window: .seconds(10)))
        #expect(RatioRetryBudget.envoy == RatioRetryBudget(permille: 200, minRetriesPerSecond: 3, window: .seconds(1)))
        #expect(RatioRetryBudget.finagle.reserve == 100_000)
        #expect(RetryBudgetConfiguration.ratio(.finagle).consecutiveRetries == 100)
        #expect(abs(RatioRetryBudget.finagle.amplificationBound(requestsPerSecond: 1000) - 1.21) < 1e-9)
    }

    @Test("With no traffic, the minimum rate over the window is all there is")
    func reserveOnly() {
        let decider = RetryDecider(policy: Self.policy(RatioRetryBudget(permille: 200, minRetriesPerSecond: 2, window: .seconds(5))))
        let granted = (0..<15).filter { _ in Self.retries(decider, at: 0) }.count
        #expect(granted == 10)
    }

    @Test("Every request deposits its share: 100 requests at 20 % pay for 20 retries")
    func depositsPayRetries() {
        let decider = RetryDecider(policy: Self.policy(RatioRetryBudget(permille: 200, minRetriesPerSecond: 0, window: .seconds(10))))
        #expect(!Self.retries(decider, at: 0))
        for _ in 0..<100 { decider.recordRequestStart(at: Self.at(milliseconds: 0)) }
        let granted = (0..<30).filter { _ in Self.retries(decider, at: 10) }.count
        #expect(granted == 20)
    }

    @Test("Deposits expire at the window's edge, withdrawals with them")
    func expiry() {
        let decider = RetryDecider(policy: Self.policy(RatioRetryBudget(permille: 1000, minRetriesPerSecond: 0, window: .seconds(10))))
        for _ in 0..<3 { decider.recordRequestStart(at: Self.at(milliseconds: 0)) }
        // The last moment the deposit's slot (0 to 1 s) is in the window.
        #expect(Self.retries(decider, at: 9_999))
        // At 10 s the slot of the deposits has left the window.
        #expect(!Self.retries(decider, at: 10_000))

        // A withdrawal expires too: a reserve spent at 0 s is whole again
        // one window later.
        let reserve = RetryDecider(policy: Self.policy(RatioRetryBudget(permille: 0, minRetriesPerSecond: 1, window: .seconds(2))))
        #expect(Self.retries(reserve, at: 0))
        #expect(Self.retries(reserve, at: 0))
        #expect(!Self.retries(reserve, at: 1_999))
        #expect(Self.retries(reserve, at: 2_000))
    }

    @Test("Time never goes back: an earlier clock counts in the latest slot")
    func earlierClock() {
        let decider = RetryDecider(policy: Self.policy(RatioRetryBudget(permille: 1000, minRetriesPerSecond: 0, window: .seconds(10))))
        #expect(!Self.retries(decider, at: 20_000))
        decider.recordRequestStart(at: Self.at(milliseconds: 0))
        // Recorded at 20 s, not at 0 s, so still in the window at 29 s.
        #expect(Self.retries(decider, at: 29_000))
    }

    @Test("Amounts saturate: a flood of deposits neither wraps nor traps")
    func saturation() {
        let budget = RetryBudget(configuration: .ratio(RatioRetryBudget(permille: 10_000, minRetriesPerSecond: 1_000_000, window: .seconds(60))))
        let now = Self.at(milliseconds: 0)
        for _ in 0..<1000 { budget.depositRequest(Int.max, at: now) }
        #expect(budget.available > 0)
        #expect(budget.withdrawRetry(1000, at: now))
        // Withdrawals saturate at the other end.
        let empty = RetryBudget(configuration: .ratio(RatioRetryBudget(permille: 0, minRetriesPerSecond: 0, window: .seconds(1))))
        empty.depositRequestLocally(Int.max, at: now)
        for _ in 0..<1000 { _ = empty.withdrawRetry(Int.max, at: now) }
        #expect(empty.available >= 0)
        #expect(RatioRetryBudget(permille: 0, minRetriesPerSecond: Int.max, window: .seconds(60)).reserve == Int.max)
    }

    @Test("The state machine deposits when a request starts; the executor's fast path is not taken")
    func requestStartDeposits() {
        let decider = RetryDecider(policy: Self.policy(RatioRetryBudget(permille: 1000, minRetriesPerSecond: 0, window: .seconds(10))))
        #expect(decider.countsRequests)
        var machine = RequestStateMachine(decider: decider)
        _ = machine.start(at: RequestTime(elapsed: .zero, wall: Self.at(milliseconds: 0)))
        #expect(decider.budget?.available == 1000)
        #expect(!RetryDecider(policy: BudgetStyleTests.policy(.awsStandard)).countsRequests)
    }

    @Test("Under a total outage retries stay within percent x requests + minimum x time (+ one window)")
    func amplificationBound() async {
        await propertyCheck(
            count: 60,
            input: Gen.int(in: 0...1000), Gen.int(in: 0...50), Gen.int(in: 1...400), Gen.int(in: 1...10)
        ) { permille, minimum, perSecond, windowSeconds in
            let ratio = RatioRetryBudget(permille: permille, minRetriesPerSecond: minimum, window: .seconds(windowSeconds))
            let decider = RetryDecider(policy: Self.policy(ratio, attempts: 4))
            let seconds = 30
            var retries = 0
            var generator = SplitMix64(seed: 3)
            // Requests spread over each second in 10 ms steps; every
            // attempt fails; each request retries while the budget pays.
            for tick in 0..<(seconds * 100) {
                let now = Self.at(milliseconds: Int64(tick) * 10)
                let requests = perSecond / 100 + (tick % 100 < perSecond % 100 ? 1 : 0)
                for _ in 0..<requests {
                    decider.recordRequestStart(at: now)
                    for attempt in 1..<4 {
                        let decision = decider.decide(
                            DecisionInput(outcome: .status(503), attempt: attempt, now: now), using: &generator)
                        guard case .retry = decision.action else { break }
                        retries += 1
                    }
                }
            }
            let requests = perSecond * seconds
            let bound = Double(permille) / 1000 * Double(requests) + Double(minimum * (seconds + windowSeconds)) + 1
            #expect(Double(retries) <= bound, "retries \(retries) above \(bound)")
            let amplification = Double(requests + retries) / Double(requests)
            let limit = ratio.amplificationBound(requestsPerSecond: Double(perSecond))
                + Double(minimum * windowSeconds + 1) / Double(requests)
            #expect(amplification <= limit + 1e-9)
        }
    }
}
