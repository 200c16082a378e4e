import PropertyBased
@testable import RetryPolicyCore
import Testing

/// A simulation keeps each request parked between events, with its
/// client's ledger beside it, and resumes it in a machine made under the
/// same compiled rules on another ledger when its next event comes. That
/// must change nothing: a request parked and resumed at every step, in
/// machines made on other ledgers, acts exactly as one machine on one
/// decider.
@Suite struct ParkingEquivalenceTests {
    static let outcomes: [AttemptOutcome] = DecisionInvariantTests.outcomes + [
        .status(429, retryAfter: "2"), .status(503, retryAfter: "1"),
    ]

    static let breakers: [CircuitBreakerConfiguration?] = [
        nil,
        CircuitBreakerConfiguration(sampling: .count(4), failureRatio: 0.5, minimumCalls: 2, breakDuration: .seconds(1), halfOpenProbes: 1),
        CircuitBreakerConfiguration(consecutiveFailures: 2, breakDuration: .milliseconds(500), breakMultiplier: 2, maxBreak: .seconds(4), halfOpenProbes: 2),
        CircuitBreakerConfiguration(sampling: .time(.seconds(10)), failureRatio: 0.3, minimumCalls: 3, breakDuration: .seconds(2)),
    ]

    /// What an action says, without the attempt records (the parked
    /// machine keeps none).
    static func describe(_ action: RequestStateMachine.Action) -> String {
        switch action {
        case .startAttempt(let number, let limit): "start \(number) \(String(describing: limit))"
        case .wait(let delay, let reason): "wait \(delay) \(reason)"
        case .refreshCredentials: "refresh"
        case .payBudget(let payment): "pay \(payment.cost)"
        case .claimProbe: "claim"
        case .succeed: "succeed"
        case .fail(let failure): "fail \(failure.reason) \(failure.error)"
        case .hedge: "hedge"
        }
    }

    /// The steps of `requests` requests one after another under `policy`:
    /// every action, and the breaker transitions.
    static func run(policy: Policy, seed: UInt64, requests: Int, parking: Bool) -> [String] {
        var outcomes = SplitMix64(seed: seed ^ 0x5EED)
        var jitter = SplitMix64(seed: seed)
        let origin = Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000)
        let template = RetryDecider(policy: policy)
        // Parking: machines made on two other ledgers take turns resuming
        // the request, which brings its own ledger each time.
        let deciders = parking ? [template.withFreshState(), template.withFreshState()] : [template]
        let state = template.state
        // A machine of each decider, left by an earlier request or step and
        // reused to resume the next parked one (as the simulation does).
        var spare: [RequestStateMachine?] = [nil, nil]
        var turn = 0
        var steps: [String] = []
        var now = Duration.zero
        for _ in 0..<requests {
            let startedAt = now
            func time() -> RequestTime { RequestTime(elapsed: now - startedAt, wall: origin + now) }
            func decider() -> RetryDecider {
                guard parking else { return deciders[0] }
                turn += 1
                return deciders[turn % 2]
            }
            var machine = parking
                ? RequestStateMachine(decider: template, request: RetryRequest(), recordingNoAttempts: (), concurrentAttempts: false)
                : RequestStateMachine(decider: deciders[0], request: RetryRequest(), keepsHistory: false)
            var action = machine.start(at: time())
            var lastOutcome: AttemptOutcome?
            var step = 0
            while step < 40 {
                step += 1
                steps.append(Self.describe(action) + " \(String(describing: machine.breakerTransition))")
                if parking, machine.isParkable {
                    #expect(machine.decider.state === state)
                    let parked = machine.park()
                    spare[turn % 2] = machine
                    let next = decider()
                    machine = spare[turn % 2]
                        ?? RequestStateMachine(decider: next, request: RetryRequest(), recordingNoAttempts: (), concurrentAttempts: false)
                    machine.resume(parked, lastOutcome: parked.isAttempting ? nil : lastOutcome, ledger: state)
                }
                switch action {
                case .startAttempt:
                    let outcome = Self.outcomes[Int(outcomes.next() % UInt64(Self.outcomes.count))]
                    now += .milliseconds(Int64(outcomes.next() % 300))
                    lastOutcome = outcome
                    action = machine.attemptFinished(outcome, at: time(), using: &jitter)
                case .wait(let delay, _):
                    now += delay
                    action = machine.waitFinished(at: time())
                case .refreshCredentials:
                    action = machine.credentialRefreshFinished(at: time())
                case .payBudget(let payment):
                    action = machine.budgetPaid(payment.settleWithoutWaiting(), at: time())
                case .claimProbe(let claim):
                    action = machine.probeClaimed(claim.settleWithoutWaiting(), at: time())
                case .succeed, .fail, .hedge:
                    step = 40
                }
            }
            now += .milliseconds(Int64(outcomes.next() % 2000))
        }
        return steps
    }

    @Test("a request parked and resumed at every step, its decider's state handed on, acts as one never parked")
    func parkingChangesNothing() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...3)) { seed, breaker in
            var policy = DecisionInvariantTests.policy(seed: seed, attempts: Int(seed % 5) + 1)
            policy.breaker = Self.breakers[breaker]
            let plain = Self.run(policy: policy, seed: seed, requests: 12, parking: false)
            let parked = Self.run(policy: policy, seed: seed, requests: 12, parking: true)
            #expect(plain == parked, "seed \(seed), breaker \(breaker)")
        }
    }

    @Test("two deciders over the same compiled rules with different ledgers share no state")
    func separateLedgersShareNothing() {
        var policy = BudgetStyleTests.policy(RetryBudgetConfiguration(capacity: 20), attempts: 3)
        policy.retryAfter.cooldown = .wait
        policy.breaker = Self.breakers[1]
        let compiled = CompiledPolicy(policy: policy)
        let first = RetryDecider(compiled: compiled, state: SharedRetryState(for: policy))
        let second = RetryDecider(compiled: compiled, state: SharedRetryState(for: policy))
        #expect(first.compiledPolicy === second.compiledPolicy)
        let now = Timestamp(nanosecondsSince1970: 1_000_000_000_000)
        #expect(first.budget?.withdraw(7) == true)
        first.cooldown.record(until: now + .seconds(5), error: SDKError(kind: .status429))
        if case (.proceed(let ticket?), _) = first.breaker!.admit(at: now) {
            _ = first.breaker!.record(failure: true, ticket: ticket, at: now)
        }
        #expect(first.budget?.available == 13)
        #expect(first.cooldown.active(at: now) != nil)
        #expect(first.breaker!.machine.withLock { $0.windowCounts } == (1, 1))

        #expect(second.budget?.available == 20)
        #expect(second.cooldown.active(at: now) == nil)
        #expect(second.breaker!.machine.withLock { $0.windowCounts } == (0, 0))
        #expect(second.admit(now: now) == .proceed(ticket: nil))
        #expect(first.admit(now: now) == .wait(.seconds(5)))

        // A decision on one ledger spends from that ledger only.
        var generator = SplitMix64(seed: 1)
        var input = DecisionInput(outcome: .status(503), attempt: 1, method: .get)
        input.now = now
        let decision = second.decide(input, using: &generator)
        #expect(decision.budgetCost > 0)
        #expect(second.budget?.available == 20 - decision.budgetCost)
        #expect(first.budget?.available == 13)
    }
}
