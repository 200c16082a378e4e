import RetryPolicyCore

/// A policy made from another layer's configuration: which inputs it
/// retries, how many times, how long it waits; plus the comments that say
/// where a choice was made and the warnings for what could not be carried
/// over.
///
/// Error kinds are not part of any other format, so an imported policy
/// names them by one fixed convention (`canonicalKind(status:)`): a
/// policy exported and imported again decides identically when it follows
/// the same convention.
public struct ImportedPolicy: Sendable {
    public var name: String
    public var description: String?
    public var source: String
    public var format: InteropFormat
    /// Every try including the first.
    public var attempts: Int
    package var retriedStatuses: Set<Int> = []
    package var retriedTransports: Set<TransportFailure> = []
    /// gRPC statuses retried, as `grpc` rules.
    package var retriedGRPC: Set<GRPCStatusCode> = []
    /// The source speaks gRPC only (a gRPC service config): the policy has
    /// `grpc` rules and no HTTP status or transport rules.
    package var grpcOnly = false
    public var backoff: Backoff
    public var retryAfter = RetryAfterPolicy(honor: false)
    public var timeouts = TimeoutBudget()
    public var budget: RetryBudgetConfiguration?
    /// Parallel copies instead of sequential retries (gRPC's
    /// `hedgingPolicy`).
    public var hedging: HedgingPolicy?
    /// A client-side rate limit (AWS adaptive mode).
    public var rateLimit: AdaptiveRateLimit?
    /// Comment lines written before a top-level key (`attempts`, `backoff`,
    /// `rules`...); `""` is the file's header. ``fileComments`` adds the
    /// line that says where the policy came from.
    public var comments: [String: [String]] = [:]
    public var warnings: [InteropWarning] = []

    public init(name: String, source: String, format: InteropFormat, attempts: Int, backoff: Backoff) {
        self.name = Self.sanitizedName(name)
        self.source = source
        self.format = format
        self.attempts = attempts
        self.backoff = backoff
    }

    mutating func comment(_ key: String, _ line: String) {
        comments[key, default: []].append(line)
    }

    mutating func warn(_ feature: String, at location: SourceLocation, _ message: String) {
        warnings.append(InteropWarning(feature: feature, location: location, message: message))
    }

    /// A duration read from the foreign file as the policy states it: in
    /// whole milliseconds (a comment says when that rounds) and at most
    /// the policy format's ``DurationText/maximum`` (a warning at `at` says
    /// when a longer one is held there).
    mutating func policyDuration(_ duration: Duration, key: String, what: String, at location: SourceLocation) -> Duration {
        if duration > DurationText.maximum {
            warn(what, at: location, "\(what) \(ForeignDuration.protoText(duration)) is longer than a policy may state (100 days); imported as 100 days")
            return DurationText.maximum
        }
        let (value, rounded) = ForeignDuration.policyPrecision(duration)
        if value == .zero && duration > .zero {
            // A positive time limit or delay stays positive: 0s would mean
            // "none" or be refused.
            comment(key, "\(what) \(ForeignDuration.protoText(duration)) rounded up to 1ms, the finest a policy states.")
            return .milliseconds(1)
        }
        if rounded { comment(key, "\(what) \(ForeignDuration.protoText(duration)) rounded to whole milliseconds.") }
        return value
    }

    // MARK: The error-kind convention

    /// The kind an imported policy reports for a status.
    package static func canonicalKind(status: Int) -> SDKError.Kind {
        switch status {
        case 429: .status429
        case 401: .unauthorized
        case 404: .notFound
        case 500...599: .status5xx
        default: .internalError
        }
    }

    /// The kind an imported policy reports for a transport failure.
    package static func canonicalKind(transport: TransportFailure) -> SDKError.Kind {
        switch transport {
        case .timeout: .timeout
        case .cancelled: .cancelled
        default: .networkError
        }
    }

    /// The kind an imported policy reports for a gRPC status: the kind of
    /// the HTTP status or transport failure the standard mapping pairs it
    /// with, where that is one kind.
    package static func canonicalKind(grpc status: GRPCStatusCode) -> SDKError.Kind {
        switch status {
        case .unavailable, .internal, .unknown, .dataLoss: .status5xx
        case .resourceExhausted: .status429
        case .unauthenticated: .unauthorized
        case .notFound: .notFound
        case .deadlineExceeded: .timeout
        case .cancelled: .cancelled
        default: .internalError
        }
    }

    static let statusKinds: [SDKError.Kind] = [.status5xx, .status429, .unauthorized, .notFound, .internalError]
    static let grpcKinds: [SDKError.Kind] = [.status5xx, .status429, .unauthorized, .notFound, .timeout, .cancelled, .internalError]
    static let transportKinds: [SDKError.Kind] = [.timeout, .networkError, .cancelled]

    // MARK: Building

    /// The rules, in the order they are written.
    var rules: [Rule] {
        var retry: [Rule] = []
        var stop: [Rule] = []
        // gRPC statuses: the retried ones, and for a gRPC source the others
        // whose kind is not the default's (OK is a success without one).
        if grpcOnly || !retriedGRPC.isEmpty {
            for kind in Self.grpcKinds {
                let codes = GRPCStatusCode.allCases.filter { $0 != .ok && Self.canonicalKind(grpc: $0) == kind }
                let retried = codes.filter(retriedGRPC.contains)
                let stopped = codes.filter { !retriedGRPC.contains($0) }
                if !retried.isEmpty { retry.append(Rule(grpc: Set(retried), error: kind, action: .retry)) }
                if grpcOnly && kind != .internalError && !stopped.isEmpty {
                    stop.append(Rule(grpc: Set(stopped), error: kind, action: .stop))
                }
            }
        }
        if grpcOnly { return retry + stop }
        let statuses = Array(StatusPattern.validCodes)
        for kind in Self.statusKinds {
            let codes = statuses.filter { Self.canonicalKind(status: $0) == kind }
            let retried = codes.filter(retriedStatuses.contains)
            if !retried.isEmpty {
                retry.append(Rule(statuses: Self.patterns(retried), error: kind, action: .retry))
            }
            // Statuses of the default's kind need no stop rule (2xx is a success without one).
            let stopped = codes.filter { !retriedStatuses.contains($0) }
            if kind != .internalError && !stopped.isEmpty {
                stop.append(Rule(statuses: Self.patterns(stopped), error: kind, action: .stop))
            }
        }
        for kind in Self.transportKinds {
            let classes = TransportFailure.allCases.filter { Self.canonicalKind(transport: $0) == kind }
            let retried = classes.filter(retriedTransports.contains)
            let stopped = classes.filter { !retriedTransports.contains($0) }
            if !retried.isEmpty { retry.append(Rule(transports: Set(retried), error: kind, action: .retry)) }
            if !stopped.isEmpty { stop.append(Rule(transports: Set(stopped), error: kind, action: .stop)) }
        }
        return retry + stop
    }

    /// The policy this import stands for.
    public var policy: Policy {
        var policy = Policy(
            name: name, description: description, attempts: attempts, backoff: backoff,
            retryAfter: retryAfter, timeouts: timeouts,
            idempotency: Idempotency(retryableMethods: Set(HTTPMethod.standard), honorIdempotentRequests: true, isExplicit: true),
            budget: budget, rules: rules,
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.hedging = hedging
        policy.rateLimit = rateLimit
        return policy
    }

    /// Status codes as the fewest patterns: whole classes (`5xx`), ranges
    /// and single codes.
    static func patterns(_ codes: [Int]) -> [StatusPattern] {
        var result: [StatusPattern] = []
        var index = 0
        let sorted = codes.sorted()
        while index < sorted.count {
            var end = index
            while end + 1 < sorted.count && sorted[end + 1] == sorted[end] + 1 { end += 1 }
            let low = sorted[index], high = sorted[end]
            if low == high {
                result.append(.code(low))
            } else if low % 100 == 0 && high == low + 99 {
                result.append(.statusClass(low / 100))
            } else if low / 100 == high / 100 || true {
                // Split at class boundaries so whole classes read as `5xx`.
                var start = low
                while start <= high {
                    let classEnd = min(high, start / 100 * 100 + 99)
                    if start % 100 == 0 && classEnd == start + 99 {
                        result.append(.statusClass(start / 100))
                    } else if start == classEnd {
                        result.append(.code(start))
                    } else {
                        result.append(.range(start...classEnd))
                    }
                    start = classEnd + 1
                }
            }
            index = end + 1
        }
        return result
    }

    /// `name` as a policy name (`ImportFileNames/sanitized(_:)`);
    /// `imported` when nothing of it is left, which `Importer` replaces
    /// with a name derived from the candidate's position, and says so.
    static func sanitizedName(_ name: String) -> String {
        ImportFileNames.sanitized(name) ?? "imported"
    }

    /// ``comments`` under the line that says where the policy came from:
    /// what `PolicyWriter.yaml(_:comments:)` writes the file with.
    ///
    /// ```swift
    /// let text = try PolicyWriter.yaml(imported.policy, comments: imported.fileComments)
    /// ```
    public var fileComments: [String: [String]] {
        var result = comments
        result[""] = ["Imported from \(source) (\(format.title)) by retry-policy import."] + (comments[""] ?? [])
        return result
    }
}

extension Policy {
    /// The policy with every error kind the same (`internal_error`): what
    /// it retries, when and how long it waits, without the vocabulary it
    /// reports errors in, which no other layer's format has. Comparing a
    /// policy with a mesh's configuration compares these.
    package var withoutErrorKinds: Policy {
        var copy = self
        for index in copy.rules.indices where copy.rules[index].error != nil {
            copy.rules[index].error = .internalError
        }
        if copy.defaultRule != nil { copy.defaultRule!.error = .internalError }
        return copy
    }
}
