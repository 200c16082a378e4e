/// The numbers of a retry budget: a token bucket shared by every request
/// under one policy, spent and refilled by the rules of its style.
///
/// Each style is a type of its own (``Rules`` has one case per style):
///
/// - ``TokenBucketBudget``, the AWS SDKs' retry quota (presets
///   `aws-standard` and `aws-standard-2026`): a retry takes its cost from
///   the bucket and is refused when fewer tokens remain.
/// - ``GRPCRetryThrottling``, gRPC retry throttling (gRFC A6): failures
///   drain the bucket, successes add `tokenRatio`, retries need more than
///   half of `maxTokens` left.
/// - ``RatioRetryBudget``, the ratio budget of Finagle, Linkerd, Envoy
///   and the Gateway API (presets `finagle`, `envoy`, `gateway-api`):
///   every request deposits a fraction of a retry, every retry withdraws
///   one, deposits expire after a window, and a minimum rate of retries is
///   always allowed.
///
/// During an outage every retry spends tokens and nothing refunds them, so
/// a fleet's retries stop after a bounded number instead of multiplying the
/// load on a struggling server.
public struct RetryBudgetConfiguration: Hashable, Sendable {
    /// The name of a budget's style.
    public enum Style: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// ``TokenBucketBudget``.
        case tokenBucket = "token_bucket"
        /// ``GRPCRetryThrottling``.
        case grpc
        /// ``RatioRetryBudget``.
        case ratio

        public var description: String { rawValue }
    }

    /// A budget style and its numbers.
    public enum Rules: Hashable, Sendable {
        case tokenBucket(TokenBucketBudget)
        case grpc(GRPCRetryThrottling)
        case ratio(RatioRetryBudget)
    }

    public var rules: Rules
    /// The named preset the numbers came from, if any (`aws-standard`, ...).
    public var preset: String?
    public var location: SourceLocation?

    public init(rules: Rules, preset: String? = nil, location: SourceLocation? = nil) {
        self.rules = rules
        self.preset = preset
        self.location = location
    }

    /// A token bucket with these numbers (see ``TokenBucketBudget``).
    public init(
        capacity: Int = 500,
        retryCost: Int = 5,
        timeoutRetryCost: Int = 10,
        throttlingRetryCost: Int? = nil,
        throttlingErrors: Set<SDKError.Kind> = [.status429],
        successRefund: Int = 1,
        preset: String? = nil,
        location: SourceLocation? = nil
    ) {
        self.init(
            rules: .tokenBucket(
                TokenBucketBudget(
                    capacity: capacity, retryCost: retryCost, timeoutRetryCost: timeoutRetryCost,
                    throttlingRetryCost: throttlingRetryCost, throttlingErrors: throttlingErrors,
                    successRefund: successRefund)),
            preset: preset, location: location)
    }

    /// ``TokenBucketBudget/awsStandard`` as preset `aws-standard`.
    public static let awsStandard = RetryBudgetConfiguration(rules: .tokenBucket(.awsStandard), preset: "aws-standard")

    /// ``TokenBucketBudget/awsStandard2026`` as preset `aws-standard-2026`.
    public static let awsStandard2026 = RetryBudgetConfiguration(
        rules: .tokenBucket(.awsStandard2026), preset: "aws-standard-2026")

    /// gRPC retry throttling with `maxTokens` (1...1000) and a token ratio
    /// in thousandths (`tokenRatio` 0.1 is 100), as preset `grpc`.
    public static func grpc(maxTokens: Int, tokenRatioThousandths: Int, location: SourceLocation? = nil) -> RetryBudgetConfiguration {
        RetryBudgetConfiguration(
            rules: .grpc(GRPCRetryThrottling(maxTokens: maxTokens, tokenRatio: tokenRatioThousandths)), preset: "grpc",
            location: location)
    }

    /// A ratio budget with these numbers, named `preset` when they are a
    /// peer's (see ``RatioRetryBudget``).
    public static func ratio(
        _ budget: RatioRetryBudget, preset: String? = nil, location: SourceLocation? = nil
    ) -> RetryBudgetConfiguration {
        RetryBudgetConfiguration(rules: .ratio(budget), preset: preset, location: location)
    }

    /// The ratio presets by name, with the numbers each stands for.
    public static let ratioPresets: [(name: String, budget: RatioRetryBudget)] = [
        ("finagle", .finagle), ("envoy", .envoy), ("gateway-api", .gatewayAPI),
    ]

    /// Every preset name `budget.preset` accepts.
    public static let presetNames = ["aws-standard", "aws-standard-2026", "grpc"] + ratioPresets.map(\.name)

    /// The style's name.
    public var style: Style {
        switch rules {
        case .tokenBucket: .tokenBucket
        case .grpc: .grpc
        case .ratio: .ratio
        }
    }

    /// A ratio budget's numbers, when that is the style.
    public var ratio: RatioRetryBudget? {
        if case .ratio(let ratio) = rules { ratio } else { nil }
    }

    /// Whether every request deposits into the budget (a ratio budget).
    public var countsRequests: Bool { ratio != nil }

    /// The token bucket's numbers, when that is the style.
    public var tokenBucket: TokenBucketBudget? {
        if case .tokenBucket(let bucket) = rules { bucket } else { nil }
    }

    /// gRPC throttling's numbers, when that is the style.
    public var grpcThrottling: GRPCRetryThrottling? {
        if case .grpc(let throttling) = rules { throttling } else { nil }
    }
}

/// The bucket in its own units (thousandths of a token under gRPC
/// throttling), whatever the style: what checks that compare costs with
/// capacity read.
extension RetryBudgetConfiguration {
    /// Tokens a full bucket holds.
    public var capacity: Int { rules.capacity }

    /// Tokens a retry after a transient failure costs.
    public var retryCost: Int {
        switch rules {
        case .tokenBucket(let bucket): bucket.retryCost
        case .grpc: GRPCRetryThrottling.failureCost
        case .ratio: RatioRetryBudget.retryCost
        }
    }

    /// Tokens a retry after a timeout costs.
    public var timeoutRetryCost: Int { tokenBucket?.timeoutRetryCost ?? retryCost }

    /// Tokens a retry after throttling costs.
    public var throttlingRetryCost: Int { tokenBucket?.throttlingRetryCost ?? retryCost }

    /// The error kinds a throttling retry is priced for (none under gRPC,
    /// which charges every failure the same).
    public var throttlingErrors: Set<SDKError.Kind> { tokenBucket?.throttlingErrors ?? [] }

    /// gRPC's `maxTokens` (whole tokens); under a token bucket, its
    /// capacity in thousands.
    public var maxTokens: Int { grpcThrottling?.maxTokens ?? capacity / GRPCRetryThrottling.failureCost }

    /// A retry is allowed only while more than this many tokens remain
    /// after the failure (0 for a token bucket, which refuses only a
    /// retry it cannot pay).
    public var threshold: Int { grpcThrottling?.threshold ?? 0 }

    /// How many retries in a row a full bucket pays for with no success in
    /// between (transient failures).
    public var consecutiveRetries: Int { rules.consecutiveRetries(cost: retryCost) }
    /// The same for retries after timeouts.
    public var consecutiveTimeoutRetries: Int { rules.consecutiveRetries(cost: timeoutRetryCost) }
    /// The same for retries after throttling.
    public var consecutiveThrottlingRetries: Int { rules.consecutiveRetries(cost: throttlingRetryCost) }
}
