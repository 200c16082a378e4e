/// One line of a policy's decision table: conditions, then what they mean.
///
/// Rules are evaluated in order and the first match wins, like a firewall
/// table, so that a reader can predict a decision by reading top to bottom.
public struct Rule: Hashable, Sendable {
    /// What a rule does with a matching attempt.
    public enum Action: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Retry if attempts, idempotency, deadline and budget allow.
        case retry
        /// Fail now with the rule's error.
        case stop
        /// Treat the response as a success (useful for a 404 that an API
        /// uses to mean "empty").
        case success

        public var description: String { rawValue }
    }

    /// Status codes this rule matches. Empty means the rule does not match
    /// responses at all (a rule with no statuses, transports, conditions or
    /// gRPC statuses matches nothing).
    public var statuses: [StatusPattern]
    /// Transport failures this rule matches.
    public var transports: Set<TransportFailure>
    /// Declared conditions (``Policy/conditions``) this rule matches.
    public var conditions: Set<AttemptCondition>
    /// gRPC statuses this rule matches. A gRPC outcome is matched only by
    /// these, never by ``statuses``, and an HTTP response never by these.
    public var grpc: Set<GRPCStatusCode>
    /// Restricts the rule to these methods; `nil` matches every method.
    public var methods: Set<HTTPMethod>?
    /// The error kind a stop (or an exhausted retry) reports. Required for
    /// `retry` and `stop`; ignored for `success`.
    public var error: SDKError.Kind?
    public var action: Action
    /// Whether a server-directed delay on a matching response is honoured.
    /// `nil` inherits the policy's ``RetryAfterPolicy/honor``.
    public var honorRetryAfter: Bool?
    /// Refresh credentials before the retry, at most once per request (the
    /// 401 refresh-then-retry-once pattern).
    public var refreshCredentials: Bool
    /// Where the rule is written, for messages.
    public var location: SourceLocation?

    public init(
        statuses: [StatusPattern] = [],
        transports: Set<TransportFailure> = [],
        conditions: Set<AttemptCondition> = [],
        grpc: Set<GRPCStatusCode> = [],
        methods: Set<HTTPMethod>? = nil,
        error: SDKError.Kind? = nil,
        action: Action,
        honorRetryAfter: Bool? = nil,
        refreshCredentials: Bool = false,
        location: SourceLocation? = nil
    ) {
        self.statuses = statuses
        self.transports = transports
        self.conditions = conditions
        self.grpc = grpc
        self.methods = methods
        self.error = error
        self.action = action
        self.honorRetryAfter = honorRetryAfter
        self.refreshCredentials = refreshCredentials
        self.location = location
    }

    /// Whether the rule matches a response with `status`.
    @inlinable
    public func matches(status: Int, method: HTTPMethod) -> Bool {
        if let methods, !methods.contains(method) { return false }
        for pattern in statuses where pattern.contains(status) { return true }
        return false
    }

    /// Whether the rule matches a transport failure.
    @inlinable
    public func matches(transport: TransportFailure, method: HTTPMethod) -> Bool {
        if let methods, !methods.contains(method) { return false }
        return transports.contains(transport)
    }

    /// Whether the rule matches a gRPC call that ended with `status`.
    @inlinable
    public func matches(grpc status: GRPCStatusCode, method: HTTPMethod) -> Bool {
        if let methods, !methods.contains(method) { return false }
        return grpc.contains(status)
    }

    /// Whether the rule matches a declared condition.
    @inlinable
    public func matches(condition: AttemptCondition, method: HTTPMethod) -> Bool {
        if let methods, !methods.contains(method) { return false }
        return conditions.contains(condition)
    }
}

/// What a policy does with inputs no rule matches.
public struct DefaultRule: Hashable, Sendable {
    public var error: SDKError.Kind
    public var action: Rule.Action
    public var location: SourceLocation?

    public init(error: SDKError.Kind, action: Rule.Action, location: SourceLocation? = nil) {
        self.error = error
        self.action = action
        self.location = location
    }
}
