import RetryPolicyCore

/// Policy to an Envoy route's `RouteAction` fields: `timeout` and
/// `retry_policy` (config.route.v3.RetryPolicy). A ratio budget is a
/// cluster's setting in Envoy, so a policy with one becomes a bootstrap's
/// `static_resources`: a listener whose one route carries those fields
/// and sends to a cluster named after the policy, whose
/// `circuit_breakers` hold the `retry_budget`.
public enum EnvoyExporter {
    /// Envoy's default `rate_limited_retry_back_off.max_interval`.
    package static let defaultRateLimitedMaxInterval: Duration = .seconds(300)

    public static func export(_ policy: Policy, file: String) -> ExportResult {
        let behaviour = PolicyBehaviour(policy: policy, file: file)
        var warnings = behaviour.commonWarnings(target: "Envoy")
        var retryPolicy: [InteropValue.Field] = []
        let retries = policy.attempts - 1
        if behaviour.retriesSomething {
            let (conditions, codes, conditionWarnings) = EnvoyConditions.conditions(for: behaviour, target: "Envoy")
            warnings += conditionWarnings
            retryPolicy.append(.init("retry_on", .string(conditions.joined(separator: ","))))
            retryPolicy.append(.init("num_retries", .int(retries)))
            if let perAttempt = policy.timeouts.perAttempt {
                retryPolicy.append(.init("per_try_timeout", .string(ForeignDuration.protoText(perAttempt))))
            }
            if !codes.isEmpty { retryPolicy.append(.init("retriable_status_codes", .array(codes.map(InteropValue.int)))) }
            let (backOff, backoffWarnings) = backOff(behaviour, retries: retries, target: "Envoy")
            warnings += backoffWarnings
            retryPolicy.append(.init("retry_back_off", backOff))
            let (rateLimited, rateWarnings) = rateLimitedBackOff(behaviour)
            warnings += rateWarnings
            if let rateLimited { retryPolicy.append(.init("rate_limited_retry_back_off", rateLimited)) }
        } else {
            retryPolicy.append(.init("num_retries", .int(0)))
        }
        var cluster: InteropValue?
        if let ratio = policy.budget?.ratio {
            let (block, written, percentWarning) = EnvoyRetryBudget.write(
                ratio, spelling: .envoy(cluster: policy.name), behaviour: behaviour)
            if let percentWarning { warnings.append(percentWarning) }
            cluster = Self.cluster(policy.name, retryBudget: block)
            warnings.append(ratioBudgetWarning(written, behaviour))
        } else if policy.budget != nil {
            warnings.append(budgetWarning(behaviour, target: "Envoy"))
        }
        if let warning = behaviour.breakerWarning(
            target: "Envoy", instead: "a cluster's outlier_detection ejects failing hosts; its circuit_breakers cap concurrent requests")
        {
            warnings.append(warning)
        }
        if let warning = behaviour.hedgingWarning(
            target: "Envoy", instead: "a route's hedge_policy sends another request only on a per-try timeout, with no delay of its own")
        {
            warnings.append(warning)
        }
        if let warning = behaviour.rateLimitWarning(target: "Envoy") { warnings.append(warning) }
        // No total in the policy: no deadline, which Envoy spells 0s. That
        // turns off Envoy's default 15s route timeout, which the reader of
        // the route may not expect: said where the export's losses are.
        let total = policy.timeouts.total ?? .zero
        if policy.timeouts.total == nil {
            warnings.append(InteropWarning(
                feature: "timeouts.total", location: behaviour.location("timeouts"),
                message: "the policy sets no total timeout, exported as timeout: 0s, which disables Envoy's default 15s route timeout; set timeouts.total to keep a deadline"))
        }
        let routeAction: [InteropValue.Field] = [
            .init("timeout", .string(ForeignDuration.protoText(total))),
            .init("retry_policy", .object(retryPolicy)),
        ]
        guard let cluster else {
            return ExportResult(format: .envoy, document: .object(routeAction), warnings: warnings)
        }
        let document = bootstrap(policy.name, routeAction: [.init("cluster", .string(policy.name))] + routeAction, cluster: cluster)
        warnings.append(skeletonWarning(policy.name, behaviour))
        return ExportResult(format: .envoy, document: document, warnings: warnings)
    }

    /// The bootstrap around a ratio budget is a skeleton: Envoy would
    /// start from it, bind its example address and route to a cluster with
    /// no host, so it is said as plainly as every other loss.
    static func skeletonWarning(_ name: String, _ behaviour: PolicyBehaviour) -> InteropWarning {
        InteropWarning(
            feature: "budget", location: behaviour.location("budget"),
            message: "the export is a bootstrap skeleton: its listener binds Envoy's example address 0.0.0.0:10000 and its cluster \"\(name)\" has no endpoints (load_assignment); move the route's retry_policy and timeout and the cluster's circuit_breakers into your own configuration")
    }

    /// A token bucket has no Envoy equivalent.
    static func budgetWarning(_ behaviour: PolicyBehaviour, target: String) -> InteropWarning {
        InteropWarning(
            feature: "budget", location: behaviour.location("budget"),
            message: "\(target) has no token-bucket budget on a route; its retry budget is a cluster circuit breaker (retry_budget: budget_percent of active requests), not exported")
    }

    /// What the exported `retry_budget` changes: Envoy caps retries in
    /// flight (a concurrency) where the policy counts retries started over
    /// a window (a rate); the `envoy` preset's mapping reads one as the
    /// other over one second, so only another window is lost on top.
    static func ratioBudgetWarning(_ ratio: RatioRetryBudget, _ behaviour: PolicyBehaviour) -> InteropWarning {
        let percent = NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)
        let window = ratio.window == .seconds(1)
            ? "" : "; the policy's \(ratio.window.formattedForHumans) window is lost (Envoy has none; read back, the budget counts over 1s)"
        return InteropWarning(
            feature: "budget", location: behaviour.location("budget.retry_percent", "budget.preset", "budget"),
            message: "Envoy's retry budget caps retries in flight at \(percent) % of active requests (at least \(ratio.minRetriesPerSecond) at once), where the policy allows \(percent) % of the requests started over \(ratio.window.formattedForHumans) plus \(ratio.minRetriesPerSecond) retries a second: the same only when attempts last about a second\(window)")
    }

    /// Cluster `name` with `retryBudget` in its DEFAULT-priority circuit
    /// breaker thresholds (config.cluster.v3.CircuitBreakers.Thresholds);
    /// its endpoints are the user's to add.
    static func cluster(_ name: String, retryBudget: InteropValue) -> InteropValue {
        .object([
            .init("name", .string(name)),
            .init("circuit_breakers", .object([
                .init("thresholds", .array([
                    .object([.init("priority", .string("DEFAULT")), .init("retry_budget", retryBudget)]),
                ])),
            ])),
        ])
    }

    /// A bootstrap's `static_resources` with one listener (Envoy's
    /// examples' 0.0.0.0:10000) whose HttpConnectionManager routes every
    /// request with `routeAction`, and `cluster`: the smallest file Envoy
    /// loads that holds both halves of the policy, as the importer reads
    /// them back.
    static func bootstrap(_ name: String, routeAction: [InteropValue.Field], cluster: InteropValue) -> InteropValue {
        let connectionManager: InteropValue = .object([
            .init("@type", .string("type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager")),
            .init("stat_prefix", .string(name)),
            .init("route_config", .object([
                .init("name", .string(name)),
                .init("virtual_hosts", .array([
                    .object([
                        .init("name", .string(name)),
                        .init("domains", .array([.string("*")])),
                        .init("routes", .array([
                            .object([
                                .init("match", .object([.init("prefix", .string("/"))])),
                                .init("route", .object(routeAction)),
                            ]),
                        ])),
                    ]),
                ])),
            ])),
            .init("http_filters", .array([
                .object([
                    .init("name", .string("envoy.filters.http.router")),
                    .init("typed_config", .object([
                        .init("@type", .string("type.googleapis.com/envoy.extensions.filters.http.router.v3.Router")),
                    ])),
                ]),
            ])),
        ])
        let listener: InteropValue = .object([
            .init("name", .string(name)),
            .init("address", .object([
                .init("socket_address", .object([.init("address", .string("0.0.0.0")), .init("port_value", .int(10000))])),
            ])),
            .init("filter_chains", .array([
                .object([
                    .init("filters", .array([
                        .object([
                            .init("name", .string("envoy.filters.network.http_connection_manager")),
                            .init("typed_config", connectionManager),
                        ]),
                    ])),
                ]),
            ])),
        ])
        return .object([
            .init("static_resources", .object([
                .init("listeners", .array([listener])),
                .init("clusters", .array([cluster])),
            ])),
        ])
    }

    static func backOff(_ behaviour: PolicyBehaviour, retries: Int, target: String) -> (InteropValue, [InteropWarning]) {
        let policy = behaviour.policy
        var warnings: [InteropWarning] = []
        var base = policy.backoff.initial
        var maximum = policy.backoff.max ?? Backoff.ceiling
        if base < .milliseconds(1) {
            warnings.append(InteropWarning(
                feature: "backoff.initial", location: behaviour.location("backoff.initial", "backoff"),
                message: "\(target) requires base_interval of at least 1ms; the policy's \(base.formattedForHumans) is exported as 1ms"))
            base = .milliseconds(1)
        }
        if maximum < base {
            warnings.append(InteropWarning(
                feature: "backoff.max", location: behaviour.location("backoff.max", "backoff"),
                message: "\(target) requires max_interval at least base_interval; exported as \(base.formattedForHumans)"))
            maximum = base
        }
        warnings += behaviour.backoffWarnings(target: target, retries: retries) {
            EnvoyConditions.bound(base: base, max: maximum, retry: $0)
        }
        return (.object([
            .init("base_interval", .string(ForeignDuration.protoText(base))),
            .init("max_interval", .string(ForeignDuration.protoText(maximum))),
        ]), warnings)
    }

    static func rateLimitedBackOff(_ behaviour: PolicyBehaviour) -> (InteropValue?, [InteropWarning]) {
        let retryAfter = behaviour.policy.retryAfter
        var warnings: [InteropWarning] = []
        guard behaviour.honoursServerDelays else { return (nil, []) }
        let headersAt = behaviour.location("retry_after.headers", "retry_after")
        var resetHeaders: [InteropValue] = []
        for header in retryAfter.headers {
            let format: String
            switch header.format {
            case .seconds: format = "SECONDS"
            case .unixSeconds: format = "UNIX_TIMESTAMP"
            case .http:
                format = "SECONDS"
                warnings.append(InteropWarning(
                    feature: "retry_after.headers", location: headersAt,
                    message: "Envoy does not parse an HTTP-date in \(header.name); exported as SECONDS, so a date is ignored"))
            case .milliseconds:
                warnings.append(InteropWarning(
                    feature: "retry_after.headers", location: headersAt,
                    message: "Envoy's reset headers are SECONDS or UNIX_TIMESTAMP; \(header.name) (milliseconds) is not exported"))
                continue
            }
            resetHeaders.append(.object([.init("name", .string(header.name)), .init("format", .string(format))]))
        }
        guard !resetHeaders.isEmpty else { return (nil, warnings) }
        for index in behaviour.rulesOverridingRetryAfter {
            warnings.append(InteropWarning(
                feature: "honor_retry_after", location: behaviour.location("rules[\(index)].honor_retry_after", "rules[\(index)]"),
                message: "Envoy reads reset headers on every retried response; this rule's honor_retry_after is not exported"))
        }
        let maxInterval: Duration
        if let cap = retryAfter.cap {
            maxInterval = cap
        } else {
            maxInterval = EnvoyExporter.defaultRateLimitedMaxInterval
            warnings.append(InteropWarning(
                feature: "retry_after.cap", location: behaviour.location("retry_after"),
                message: "the policy accepts any server delay; Envoy discards delays above max_interval, exported as its default 300s"))
        }
        if retryAfter.aboveCap != .ignore {
            warnings.append(InteropWarning(
                feature: "retry_after.above_cap", location: behaviour.location("retry_after.above_cap", "retry_after"),
                message: "Envoy discards a delay above max_interval and falls back to its backoff (above_cap: ignore); the policy's above_cap is \(retryAfter.aboveCap)"))
        }
        warnings.append(InteropWarning(
            feature: "retry_after.combine", location: behaviour.location("retry_after.combine", "retry_after"),
            message: "Envoy waits a random time between the server's delay and 1.5 times it; the policy waits \(retryAfter.combine == .server ? "exactly the server's delay" : "the larger of it and the backoff")"))
        return (.object([
            .init("reset_headers", .array(resetHeaders)),
            .init("max_interval", .string(ForeignDuration.protoText(maxInterval))),
        ]), warnings)
    }
}
