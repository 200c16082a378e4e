import PropertyBased
import RetryPolicyCore
@testable import RetryPolicyExecutor
import RetryPolicyTestSupport
import Testing

/// The first try's bit test against the decider it was computed from: for
/// any policy, the same successes for every status and method, and no
/// bits at all where a success depends on more than the status.
@Suite("Executor: a first try's success by its status alone")
struct PlainSuccessStatusesTests {
    static let statuses = Array(-1...700)

    @Test("any policy: the bits say what the decider says, for every status and method, or there are none")
    func agreesWithTheDecider() async {
        await propertyCheck(count: 200, input: Gen.uint64()) { seed in
            let decider = RetryDecider(policy: PolicyGenerator().policy(seed: seed))
            let successes = PlainSuccessStatuses(decider)
            guard decider.budget == nil, decider.compiledPolicy.namedMethods.isEmpty else {
                #expect(!Self.statuses.contains { successes.contains($0) }, "policy seed \(seed)")
                return
            }
            for method in HTTPMethod.standard + ["PROPFIND"] {
                for status in Self.statuses {
                    #expect(
                        successes.contains(status) == decider.isPlainSuccess(.status(status), method: method),
                        "policy seed \(seed), \(method) \(status)")
                }
            }
        }
    }

    @Test("any policy: the executor's first-try shortcut holds the set's 2xx bits and says nothing else is a success")
    func shortcutAgreesWithTheSet() async {
        await propertyCheck(count: 200, input: Gen.uint64()) { seed in
            let decider = RetryDecider(policy: PolicyGenerator().policy(seed: seed))
            let successes = PlainSuccessStatuses(decider)
            let shortcut = FirstTryShortcut(startsAtOnce: true, successes: successes)
            for status in Self.statuses {
                #expect(
                    shortcut.isSuccess(status) == ((200..<264).contains(status) && successes.contains(status)),
                    "policy seed \(seed), status \(status)")
            }
        }
    }

    @Test("a rule that makes a 2xx a failure takes its bit away; one that makes a 4xx a success adds one; neighbours keep theirs")
    func rulesMoveBits() {
        let policy = Policy(
            name: "bits", attempts: 3, backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
            rules: [
                Rule(statuses: [.code(203)], error: .internalError, action: .retry),
                Rule(statuses: [.code(405)], error: .notFound, action: .success),
                Rule(statuses: [.code(511)], error: .notFound, action: .success),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        let successes = PlainSuccessStatuses(RetryDecider(policy: policy))
        let expected: Set<Int> = Set(200...299).subtracting([203]).union([405, 511])
        for status in Self.statuses {
            #expect(successes.contains(status) == expected.contains(status), "\(status)")
        }
        #expect(!successes.contains(Int.min) && !successes.contains(Int.max))
        let shortcut = FirstTryShortcut(startsAtOnce: true, successes: successes)
        #expect(shortcut.isSuccess(200) && shortcut.isSuccess(263) && !shortcut.isSuccess(203))
        #expect(!shortcut.isSuccess(405) && !shortcut.isSuccess(264) && !shortcut.isSuccess(199))
        #expect(!shortcut.isSuccess(Int.min) && !shortcut.isSuccess(Int.max))
    }
}
