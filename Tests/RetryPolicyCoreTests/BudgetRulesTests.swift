@testable import RetryPolicyCore
import Testing

/// Each budget style's rules, on a bucket of its own, without a decider.
@Suite struct BudgetRulesTests {
    /// gRPC retry throttling as gRFC A6 defines it
    /// (https://github.com/grpc/proposal/blob/master/A6-client-retries.md,
    /// "Throttling Retry Attempts and Hedged RPCs"): tokens start at
    /// maxTokens, a failure takes 1, a success adds tokenRatio, and
    /// retries are allowed only while more than maxTokens / 2 remain.
    @Test("gRPC throttling: starts at maxTokens, failure -1, success +tokenRatio, retries only above maxTokens/2")
    func grpcThrottlingRules() {
        let rules = GRPCRetryThrottling(maxTokens: 4, tokenRatio: 600)
        let bucket = RetryBudget(configuration: RetryBudgetConfiguration(rules: .grpc(rules)))
        #expect(bucket.available == 4 * 1000)
        // 4 -> 3: above 2.
        #expect(rules.recordFailure(in: bucket, deferring: false) == .counted(permitsRetry: true))
        #expect(bucket.available == 3000)
        #expect(rules.payForUnpricedRetry(at: nil, from: bucket, deferring: false) == .paid(1000))
        // 3 -> 2: not above 2.
        #expect(rules.recordFailure(in: bucket, deferring: false) == .counted(permitsRetry: false))
        #expect(bucket.available == 2000)
        #expect(rules.payForUnpricedRetry(at: nil, from: bucket, deferring: false) == .refused)
        #expect(rules.payForRetry(after: .counted(permitsRetry: false), kind: .status5xx, isTimeout: false, at: nil, from: bucket, deferring: false) == .refused)
        // A success adds tokenRatio (0.6), whatever the last retry cost.
        rules.recordSuccess(lastRetryCost: 1000, in: bucket)
        #expect(bucket.available == 2600)
        #expect(rules.payForUnpricedRetry(at: nil, from: bucket, deferring: false) == .paid(1000))
        // Never below zero, never above maxTokens.
        for _ in 0..<10 { _ = rules.recordFailure(in: bucket, deferring: false) }
        #expect(bucket.available == 0)
        for _ in 0..<20 { rules.recordSuccess(lastRetryCost: 0, in: bucket) }
        #expect(bucket.available == 4000)
        // A hedge that never started gives nothing back: it took nothing.
        rules.cancel(.paid(1000), in: bucket)
        #expect(bucket.available == 4000)
        // A failure left to the payment still counts when it stops first.
        #expect(rules.recordFailure(in: bucket, deferring: true) == .countedOnPayment)
        #expect(bucket.available == 4000)
        rules.abandon(.countedOnPayment, in: bucket)
        #expect(bucket.available == 3000)
    }

    @Test("Token bucket: the retry takes its priced cost, refused when short; a success refunds")
    func tokenBucketRules() {
        let rules = TokenBucketBudget(capacity: 20, retryCost: 7, timeoutRetryCost: 9, throttlingRetryCost: 3, successRefund: 2)
        let bucket = RetryBudget(configuration: RetryBudgetConfiguration(rules: .tokenBucket(rules)))
        #expect(bucket.available == 20)
        #expect(rules.recordFailure(in: bucket, deferring: false) == .unrecorded)
        #expect(bucket.available == 20)
        #expect(rules.payForRetry(after: .unrecorded, kind: .status5xx, isTimeout: true, at: nil, from: bucket, deferring: false) == .paid(9))
        #expect(rules.payForRetry(after: .unrecorded, kind: .status429, isTimeout: false, at: nil, from: bucket, deferring: false) == .paid(3))
        #expect(bucket.available == 8)
        #expect(rules.payForRetry(after: .unrecorded, kind: .status5xx, isTimeout: false, at: nil, from: bucket, deferring: false) == .paid(7))
        #expect(rules.payForUnpricedRetry(at: nil, from: bucket, deferring: false) == .refused)
        #expect(bucket.available == 1)
        // Deferred: nothing taken until the driver pays.
        #expect(rules.payForUnpricedRetry(at: nil, from: bucket, deferring: true) == .pending(.withdraw, cost: 7))
        #expect(bucket.available == 1)
        rules.cancel(.paid(7), in: bucket)
        #expect(bucket.available == 8)
        rules.recordSuccess(lastRetryCost: 0, in: bucket)
        #expect(bucket.available == 10)
        rules.recordSuccess(lastRetryCost: 9, in: bucket)
        #expect(bucket.available == 19)
        rules.recordSuccess(lastRetryCost: 9, in: bucket)
        #expect(bucket.available == 20)
    }
}
