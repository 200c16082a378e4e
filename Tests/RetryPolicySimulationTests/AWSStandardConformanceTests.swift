import Foundation
import RetryPolicyCore
import Testing

/// The AWS SDKs' standard-mode tables (retry specification 2.0 and 2.1,
/// transcribed in AdaptiveConformance/ with their source), run through
/// the request state machine under the `aws-standard` and
/// `aws-standard-2026` budget presets: every outcome, retry quota and
/// (where the table's backoff is the policy's) delay.
@Suite("AWS standard mode: the retry specification's tables")
struct AWSStandardConformanceTests {
    struct Table: Decodable {
        struct Source: Decodable {
            var repository: String
            var path: String
            var commit: String
            var throttling_error_codes: [String]?
        }
        struct Given: Decodable {
            var max_attempts: Int?
            var initial_retry_tokens: Int?
            var base_delay: Double?
            var max_backoff_time: Double?
            var service: String?
        }
        struct Response: Decodable {
            var status: Int
            var error_code: String?
            var headers: [String: String]?
            var outcome: String
            var retry_quota: Int
            var delay: Double?
        }
        struct Case: Decodable {
            var name: String
            var given: Given
            var responses: [Response]
            var delay_not_checked: String?
            var multi_invocation: Bool?
        }
        var source: Source
        var defaults: Given
        var cases: [Case]
    }

    static func load(_ name: String) throws -> Table {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("AdaptiveConformance").appendingPathComponent(name)
        return try JSONDecoder().decode(Table.self, from: Data(contentsOf: url))
    }

    static func policy(_ given: Table.Given, defaults: Table.Given, preset: RetryBudgetConfiguration) -> Policy {
        var bucket = preset.tokenBucket!
        bucket.capacity = given.initial_retry_tokens ?? defaults.initial_retry_tokens!
        let base = Duration.saturating(seconds: given.base_delay ?? defaults.base_delay!)
        let cap = Duration.saturating(seconds: given.max_backoff_time ?? defaults.max_backoff_time!)
        return Policy(
            name: "aws", attempts: given.max_attempts ?? defaults.max_attempts!,
            // exponential_base 1: the random factor is 1, no jitter.
            backoff: Backoff(initial: base, max: cap, multiplier: 2, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: false),
            budget: RetryBudgetConfiguration(rules: .tokenBucket(bucket), preset: preset.preset),
            rules: [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            ])
    }

    /// Runs every case of `file` under `preset`; returns how many rows ran.
    static func run(_ file: String, preset: RetryBudgetConfiguration) throws -> Int {
        let table = try load(file)
        let throttlingCodes = Set(table.source.throttling_error_codes ?? [])
        var rows = 0
        for testCase in table.cases {
            let policy = policy(testCase.given, defaults: table.defaults, preset: preset)
            let decider = RetryDecider(policy: policy)
            let budget = try #require(decider.budget)
            var generator = SplitMix64(seed: 1)
            var clock = Duration.zero
            let origin = Timestamp(secondsSince1970: 1_735_689_600)
            var machine = RequestStateMachine(decider: decider)
            var startedAt = Duration.zero
            var action = machine.start(at: RequestTime(.zero, since: origin))
            for (index, row) in testCase.responses.enumerated() {
                let place = "\(file), \(testCase.name), response \(index + 1)"
                if case .succeed = action, testCase.multi_invocation == true {
                    // The table's next invocation: a new request on the same quota.
                    machine = RequestStateMachine(decider: decider)
                    startedAt = clock
                    action = machine.start(at: RequestTime(.zero, since: origin + clock))
                }
                guard case .startAttempt = action else {
                    Issue.record("\(place): expected an attempt, got \(action)")
                    break
                }
                // Throttling error codes arrive as the status that carries
                // throttling in a policy: 429.
                let status = row.error_code.map { throttlingCodes.contains($0) ? 429 : row.status } ?? row.status
                let now = RequestTime(elapsed: clock - startedAt, wall: origin + clock)
                action = machine.attemptFinished(.status(status), at: now, using: &generator)
                rows += 1
                switch (row.outcome, action) {
                case ("success", .succeed):
                    break
                case ("retry_request", .wait(let delay, let reason)):
                    #expect(reason == .backoff, "\(place)")
                    if let expected = row.delay, testCase.delay_not_checked == nil {
                        #expect(delay == Duration.saturating(seconds: expected), "\(place): delay \(delay)")
                    }
                    clock += delay
                    action = machine.waitFinished(at: RequestTime(elapsed: clock - startedAt, wall: origin + clock))
                case ("max_attempts_exceeded", .fail(let failure)):
                    #expect(failure.reason == .attemptsExhausted, "\(place)")
                case ("retry_quota_exceeded", .fail(let failure)):
                    #expect(failure.reason == .budgetExhausted, "\(place)")
                default:
                    Issue.record("\(place): expected \(row.outcome), got \(action)")
                }
                #expect(budget.available == row.retry_quota, "\(place): quota \(budget.available) instead of \(row.retry_quota)")
            }
        }
        return rows
    }

    @Test("Standard mode 2.0 (aws-standard): every case")
    func standard20() throws {
        #expect(try Self.run("standard-2.0.json", preset: .awsStandard) == 19)
    }

    @Test("Standard mode 2.1 (aws-standard-2026): every case; delays where the table's backoff is the policy's")
    func standard21() throws {
        #expect(try Self.run("standard-2.1.json", preset: .awsStandard2026) == 40)
    }
}
