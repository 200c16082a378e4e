/// One retry policy: the in-memory form of one policy file.
///
/// A policy is plain data (`Hashable`, diffable, printable). Compile it into
/// a ``RetryDecider`` to make decisions.
public struct Policy: Hashable, Sendable {
    public var name: String
    public var description: String?
    /// The platform whose error names the policy reports in (`ios`,
    /// `android`), if any.
    public var platform: String?
    /// Every try, including the first (gRPC's `maxAttempts`). `1` is a
    /// single-attempt policy.
    public var attempts: Int
    public var backoff: Backoff
    public var retryAfter: RetryAfterPolicy
    public var timeouts: TimeoutBudget
    /// Per-endpoint (per-placement) overrides of ``timeouts``.
    public var endpoints: [String: TimeoutBudget]
    public var idempotency: Idempotency
    /// `nil` means no budget: retries are limited by attempts and deadline
    /// only.
    public var budget: RetryBudgetConfiguration?
    /// `nil` means no circuit breaker.
    public var breaker: CircuitBreakerConfiguration? = nil
    /// `nil` means attempts run one after another; see ``HedgingPolicy``.
    public var hedging: HedgingPolicy? = nil
    /// `nil` means no client-side rate limit; see ``AdaptiveRateLimit``
    /// (AWS adaptive mode).
    public var rateLimit: AdaptiveRateLimit? = nil
    /// Outcome classes the caller's code may report (``AttemptCondition``),
    /// in the order declared; rules name them with `condition`.
    public var conditions: [AttemptCondition] = []
    /// Error kinds the policy declares beyond ``SDKError/Kind/standard``
    /// (the keys of the file's `errors`, with or without platform names).
    public var declaredErrors: [SDKError.Kind] = []
    /// Evaluated in order; the first match decides.
    public var rules: [Rule]
    /// Whether some rule matches gRPC statuses (a `grpc:` condition).
    package var hasGRPCRules: Bool { rules.contains { !$0.grpc.isEmpty } }
    /// Decides inputs no rule matches; a 2xx no rule matches is a success
    /// whatever the default says.
    public var defaultRule: DefaultRule?
    /// Per-platform error names, on top of ``PlatformNames/standard``.
    public var errorNames: PlatformNames
    /// Files of policies that must decide identically to this one (iOS and
    /// Android SDKs); lint checks it.
    public var parity: [String]
    /// Where the policy is written.
    public var location: SourceLocation?
    /// Where each key is written, by its path (`backoff.jitter`,
    /// `timeouts.total`, `rules[2].action`), so that a finding can point at
    /// the key that causes it. Filled in by the loader; empty for policies
    /// built in code.
    package var keyLocations: [String: SourceLocation] = [:]

    public init(
        name: String,
        description: String? = nil,
        platform: String? = nil,
        attempts: Int = 1,
        backoff: Backoff = .immediate,
        retryAfter: RetryAfterPolicy = RetryAfterPolicy(),
        timeouts: TimeoutBudget = TimeoutBudget(),
        endpoints: [String: TimeoutBudget] = [:],
        idempotency: Idempotency = Idempotency(),
        budget: RetryBudgetConfiguration? = nil,
        rules: [Rule] = [],
        defaultRule: DefaultRule? = nil,
        errorNames: PlatformNames = PlatformNames(),
        parity: [String] = [],
        location: SourceLocation? = nil
    ) {
        self.name = name
        self.description = description
        self.platform = platform
        self.attempts = attempts
        self.backoff = backoff
        self.retryAfter = retryAfter
        self.timeouts = timeouts
        self.endpoints = endpoints
        self.idempotency = idempotency
        self.budget = budget
        self.rules = rules
        self.defaultRule = defaultRule
        self.errorNames = errorNames
        self.parity = parity
        self.location = location
    }

    /// The timeout budget for `endpoint`: its override on top of the
    /// policy's default.
    public func timeouts(for endpoint: String?) -> TimeoutBudget {
        guard let endpoint, let override = endpoints[endpoint] else { return timeouts }
        return timeouts.overridden(by: override)
    }

    /// The name of `kind` on `platform`: the policy's own names first, then
    /// the standard ones.
    package func platformName(of kind: SDKError.Kind, on platform: String) -> String? {
        errorNames.name(of: kind, on: platform) ?? PlatformNames.standard.name(of: kind, on: platform)
    }

    /// Whether the policy can ever retry.
    package var isSingleAttempt: Bool { attempts <= 1 }
}

/// The layers a request passes through (app, SDK, gateway), each with its
/// own policy. Retries multiply across layers: lint reports the product.
public struct PolicyStack: Hashable, Sendable {
    public struct Layer: Hashable, Sendable {
        public var name: String
        /// The layer's policy file, relative to the stack file.
        public var policyPath: String
        /// Which retry configuration of another layer's file (a gRPC
        /// method, an Envoy route, an Istio route) the layer is, when the
        /// file holds several.
        public var selection: String?
        public var location: SourceLocation?

        public init(name: String, policyPath: String, selection: String? = nil, location: SourceLocation? = nil) {
            self.name = name
            self.policyPath = policyPath
            self.selection = selection
            self.location = location
        }
    }

    public var name: String
    public var layers: [Layer]
    /// The most requests one user action may cause before lint warns.
    public var maxAmplification: Int
    public var location: SourceLocation?

    public init(name: String, layers: [Layer], maxAmplification: Int = 10, location: SourceLocation? = nil) {
        self.name = name
        self.layers = layers
        self.maxAmplification = maxAmplification
        self.location = location
    }
}
