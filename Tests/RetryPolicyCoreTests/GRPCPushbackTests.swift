import PropertyBased
import RetryPolicyCore
import Testing

/// gRFC A6, "Pushback": `grpc-retry-pushback-ms` in a failed call's
/// metadata is a server-directed delay, or a request not to retry.
@Suite struct GRPCPushbackTests {
    static let policy = GRPCStatusRuleTests.policy

    static func pushback(_ value: String, _ status: GRPCStatusCode = .unavailable) -> AttemptOutcome {
        .grpc(status: status, metadata: [GRPCStatusCode.pushbackKey: value])
    }

    @Test("A6: 'how many milliseconds to wait before sending a retry': the retry waits the pushback")
    func delay() {
        let decision = decide(Self.policy, Self.pushback("250"))
        #expect(decision.delay == .milliseconds(250))
        #expect(decision.serverDirected)
        #expect(decide(Self.policy, Self.pushback("0")).delay == .zero)
        // Without pushback, the backoff (100 ms for the first retry).
        #expect(decide(Self.policy, .grpc(.unavailable)).delay == .milliseconds(100))
        #expect(!decide(Self.policy, .grpc(.unavailable)).serverDirected)
    }

    @Test("A6: 'negative or unparseable' pushback is the server asking not to retry; the decision says so")
    func negativeOrMalformedStops() {
        for value in ["-1", "-2147483648", "abc", "", "1.5", "12ms", "-", "+", "2147483648", "99999999999999999999", "1 2"] {
            let decision = decide(Self.policy, Self.pushback(value))
            #expect(decision.stopReason == .serverPushback, "'\(value)'")
            #expect(decision.error?.grpcStatus == .unavailable)
            #expect(decision.ruleIndex == 1)
        }
        #expect(StopReason.serverPushback.rawValue == "server_pushback")
    }

    @Test("A6: 'if the client has already exhausted its maxAttempts, the call will not be retried' whatever the pushback")
    func attemptsWin() {
        let decision = decide(Self.policy, Self.pushback("10"), attempt: 3)
        #expect(decision.stopReason == .attemptsExhausted)
    }

    @Test("Pushback on a status no rule retries changes nothing: the rule stops")
    func nonRetryableStatus() {
        #expect(decide(Self.policy, Self.pushback("10", .notFound)).stopReason == .notRetryable)
        #expect(decide(Self.policy, Self.pushback("-1", .notFound)).stopReason == .notRetryable)
    }

    @Test("The pushback meets the Retry-After cap: clamp waits the cap, stop stops, ignore uses the backoff")
    func cap() {
        var policy = Self.policy
        #expect(decide(policy, Self.pushback("60000")).delay == .seconds(5))
        policy.retryAfter.aboveCap = .stop
        let stopped = decide(policy, Self.pushback("60000"))
        #expect(stopped.stopReason == .retryAfterTooLong)
        #expect(stopped.error?.retryAfter == .seconds(60))
        policy.retryAfter.aboveCap = .ignore
        #expect(decide(policy, Self.pushback("60000")).delay == .milliseconds(100))
        #expect(decide(policy, Self.pushback("2147483647")).delay == .milliseconds(100))
    }

    @Test("A policy or rule that does not honour server delays ignores pushback, the stop included")
    func notHonoured() {
        var policy = Self.policy
        policy.retryAfter.honor = false
        #expect(decide(policy, Self.pushback("250")).delay == .milliseconds(100))
        #expect(decide(policy, Self.pushback("-1")).isRetry)
        policy = Self.policy
        policy.rules[1].honorRetryAfter = false
        #expect(decide(policy, Self.pushback("-1")).isRetry)
    }

    @Test("Pushback is read from gRPC metadata only: an HTTP response's grpc-retry-pushback-ms is not a Retry-After")
    func onlyGRPC() {
        let response = AttemptOutcome.response(status: 503, headers: [GRPCStatusCode.pushbackKey: "-1"])
        #expect(decide(Self.policy, response).isRetry)
        #expect(decide(Self.policy, .grpc(status: .unavailable, metadata: ["Retry-After": "3"])).delay == .milliseconds(100))
    }

    @Test("The metadata key is matched case-insensitively and the value may carry surrounding spaces")
    func spelling() {
        let outcome = AttemptOutcome.grpc(status: .unavailable, metadata: ["GRPC-Retry-Pushback-Ms": " 40 "])
        #expect(decide(Self.policy, outcome).delay == .milliseconds(40))
        #expect(GRPCPushback(value: "007") == .retry(after: .milliseconds(7)))
        #expect(GRPCPushback(value: "-0") == .retry(after: .zero))
        #expect(GRPCPushback(value: "2147483647") == .retry(after: .milliseconds(2_147_483_647)))
    }

    @Test("Any value is read without trapping: a delay within 0...Int32.max ms, or a stop")
    func anyValue() async {
        await propertyCheck(count: 500, input: Gen.character(in: " "..."9").string(of: 0...14)) { text in
            switch GRPCPushback(value: text) {
            case .retry(let delay):
                #expect(delay >= .zero && delay <= .milliseconds(Int64(Int32.max)))
            case .stop:
                break
            }
        }
    }

    @Test("The decision explains a pushback stop")
    func explained() {
        let decider = RetryDecider(policy: Self.policy)
        let input = DecisionInput(outcome: Self.pushback("-1"))
        let text = DecisionText.sentence(decider.outline(input), input: input, policy: Self.policy)
        #expect(text.contains("server_pushback"))
        #expect(text.contains("grpc-retry-pushback-ms"))
        #expect(text.contains("gRPC UNAVAILABLE"))
    }
}
