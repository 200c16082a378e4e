import RetryPolicyCore
import RetryPolicyYAML

/// resilience4j retry configuration (Spring Boot YAML,
/// `resilience4j.retry.instances.NAME`, with `configs` as bases).
enum Resilience4jImporter {
    /// resilience4j's documented defaults (RetryConfig).
    static let defaultMaxAttempts = 3
    static let defaultWait: Duration = .milliseconds(500)
    static let defaultMultiplier = 1.5
    static let defaultRandomizedWaitFactor = 0.5

    /// Exception classes and what they stand for. resilience4j matches
    /// subclasses too, so IOException covers the socket exceptions below
    /// it.
    static let exceptionClasses: [String: (transports: Set<TransportFailure>, statuses: Set<Int>, note: String)] = [
        "java.net.SocketTimeoutException": ([.timeout], [], "timeout"),
        "java.net.ConnectException": ([.connectionRefused], [], "connection_refused"),
        "java.net.UnknownHostException": ([.dns], [], "dns"),
        "javax.net.ssl.SSLException": ([.tls], [], "tls"),
        "java.net.SocketException": ([.connectionLost, .connectionRefused], [], "connection_lost, connection_refused (ConnectException is a SocketException)"),
        "java.io.IOException": ([.connectionLost, .timeout, .connectionRefused, .dns, .tls], [],
                                "connection_lost, and through its subclasses timeout, connection_refused, dns, tls"),
        "java.util.concurrent.TimeoutException": ([.timeout], [], "timeout"),
        "java.lang.Exception": (allRetryable, Set(400...599), "every failure"),
        "java.lang.Throwable": (allRetryable, Set(400...599), "every failure"),
        "java.lang.RuntimeException": ([.unknown], [], "unknown"),
        "org.springframework.web.client.HttpServerErrorException": ([], Set(500...599), "status 5xx (Spring RestTemplate)"),
        "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable": ([], [503], "status 503"),
        "org.springframework.web.client.HttpServerErrorException$BadGateway": ([], [502], "status 502"),
        "org.springframework.web.client.HttpServerErrorException$GatewayTimeout": ([], [504], "status 504"),
        "org.springframework.web.client.HttpClientErrorException$TooManyRequests": ([], [429], "status 429"),
        "org.springframework.web.client.ResourceAccessException": ([.connectionLost, .timeout, .connectionRefused, .dns, .tls], [], "I/O errors (Spring RestTemplate)"),
    ]

    static let allRetryable: Set<TransportFailure> = Set(TransportFailure.allCases).subtracting([.cancelled])

    /// The `resilience4j.retry` block of a Spring YAML document
    /// (`resilience4j: retry:` nested, or the flat key
    /// `resilience4j.retry:`).
    static func retryBlock(_ root: YAMLNode) -> YAMLNode? {
        ForeignReader.value(root, "resilience4j").flatMap { ForeignReader.value($0, "retry") }
            ?? ForeignReader.value(root, "resilience4j.retry")
    }

    /// `instances` (or the legacy `backends`) and `configs` of a retry
    /// block.
    static func sections(_ retry: YAMLNode) -> (instances: [(key: YAMLScalar, value: YAMLNode)], configs: [(key: YAMLScalar, value: YAMLNode)]) {
        let instances = (ForeignReader.value(retry, "instances") ?? ForeignReader.value(retry, "backends")).map(ForeignReader.entries) ?? []
        let configs = ForeignReader.value(retry, "configs").map(ForeignReader.entries) ?? []
        return (instances, configs)
    }

    /// One instance (or config), over its base config and resilience4j's
    /// defaults.
    static func importEntry(
        _ chosen: YAMLNode, named chosenName: String, policyName: String, retry: YAMLNode, path: String
    ) throws(InteropError) -> ImportedPolicy {
        var reader = ForeignReader(file: path)
        let configs = sections(retry).configs
        var imported = ImportedPolicy(name: policyName, source: path, format: .resilience4j, attempts: defaultMaxAttempts, backoff: .immediate)
        let chosen: YAMLNode? = chosen
        imported.comment("", "resilience4j.retry \(chosenName).")
        // Settings: the instance's, over its baseConfig (or configs.default), over resilience4j's defaults.
        var layers: [YAMLNode] = []
        if let chosen {
            layers.append(chosen)
            var baseName: String? = "default"
            if let base = ForeignReader.value(chosen, "baseConfig", relaxed: true), case .scalar(let scalar) = base { baseName = scalar.value }
            if let baseName, let base = configs.first(where: { $0.key.value == baseName }), base.key.value != chosenName {
                layers.append(base.value)
                imported.comment("", "Settings of configs.\(baseName) apply where \(chosenName) sets none.")
            }
        }
        func setting(_ key: String) -> YAMLNode? {
            for layer in layers { if let value = ForeignReader.value(layer, key, relaxed: true) { return value } }
            return nil
        }
        func duration(_ key: String) -> Duration? {
            guard let node = setting(key), let text = reader.text(node, key) else { return nil }
            if let value = ForeignDuration.parseSpring(text) { return value }
            reader.error(.invalidValue, node, "\(key): expected a duration such as 500ms, 10s or PT0.5S, found \"\(text)\"")
            return nil
        }

        var attempts = defaultMaxAttempts
        if setting("maxAttempts") == nil, setting("maxRetryAttempts") != nil {
            imported.comment("attempts", "maxRetryAttempts is resilience4j 1.x's name for maxAttempts (2.0 ignores it).")
            imported.warn("maxRetryAttempts", at: setting("maxRetryAttempts")!.location,
                          "maxRetryAttempts is read by resilience4j 1.x only; 2.0 ignores it and uses maxAttempts (default 3)")
        }
        if let node = setting("maxAttempts") ?? setting("maxRetryAttempts"), let value = reader.integer(node, "maxAttempts", lenient: true) {
            if value < 1 { reader.error(.invalidValue, node, "maxAttempts: must be at least 1, found \(value)") } else { attempts = min(value, 100) }
            if value > 100 { imported.warn("maxAttempts", at: node.location, "the policy format allows 100 attempts; \(value) imported as 100") }
        } else {
            imported.comment("attempts", "maxAttempts absent: resilience4j's default 3 (the first call included).")
        }
        imported.attempts = attempts

        let wait = duration("waitDuration") ?? defaultWait
        if setting("waitDuration") == nil { imported.comment("backoff", "waitDuration absent: resilience4j's default 500ms.") }
        let exponential = setting("enableExponentialBackoff").flatMap { reader.bool($0, "enableExponentialBackoff") } ?? false
        let randomized = setting("enableRandomizedWait").flatMap { reader.bool($0, "enableRandomizedWait") } ?? false
        var multiplier = 1.0
        var maximum = wait
        if exponential {
            multiplier = defaultMultiplier
            if let node = setting("exponentialBackoffMultiplier"), let value = reader.number(node, "exponentialBackoffMultiplier", lenient: true) {
                // IntervalFunction refuses a multiplier below 1 ("Illegal argument multiplier").
                if !(value >= 1) {
                    reader.error(.invalidValue, node, "exponentialBackoffMultiplier: must be at least 1 (resilience4j refuses smaller ones), found \(value)")
                } else if value > 100 {
                    imported.warn("exponentialBackoffMultiplier", at: node.location, "the policy format allows multipliers up to 100; \(value) imported as 100")
                    multiplier = 100
                } else {
                    multiplier = value
                }
            }
            if let cap = duration("exponentialMaxWaitDuration") {
                maximum = cap
            } else {
                // No cap: the longest wait the attempts reach.
                var longest = Double(wait.nanosecondsSaturated)
                for _ in 0..<max(attempts - 2, 0) { longest *= multiplier }
                maximum = ForeignDuration.scaled(.nanoseconds(1), by: min(longest, Double(DurationText.maximum.nanosecondsSaturated)))
                imported.comment("backoff", "exponentialMaxWaitDuration absent: no cap; max is the longest wait \(attempts) attempts reach.")
            }
            imported.comment("backoff", "Exponential: waitDuration x exponentialBackoffMultiplier^(n-1).")
        } else {
            imported.comment("backoff", "A fixed waitDuration between attempts (no jitter).")
        }
        var jitter = Backoff.Jitter.none
        var initial = wait
        if randomized {
            var factor = defaultRandomizedWaitFactor
            if let node = setting("randomizedWaitFactor"), let value = reader.number(node, "randomizedWaitFactor", lenient: true) {
                // IntervalFunction refuses factors outside [0, 1) ("Illegal argument randomizationFactor").
                if value >= 0 && value < 1 {
                    factor = value
                } else {
                    reader.error(.invalidValue, node, "randomizedWaitFactor: must be at least 0 and below 1 (resilience4j refuses others), found \(value)")
                }
            }
            // resilience4j waits uniformly in [w(1-f), w(1+f)]; equal jitter is [b/2, b].
            jitter = .equal
            initial = ForeignDuration.scaled(wait, by: 1 + factor)
            maximum = ForeignDuration.scaled(maximum, by: 1 + factor)
            let at = setting("enableRandomizedWait")?.location ?? retry.location
            if abs(factor - 1.0 / 3.0) > 1e-9 {
                imported.warn("randomizedWaitFactor", at: at,
                              "resilience4j waits uniformly in [wait x (1 - \(factor)), wait x (1 + \(factor))]; imported as equal jitter [b/2, b] with b = wait x (1 + \(factor)), whose lower bound differs")
            }
            imported.comment("backoff", "Randomized wait (factor \(factor)): equal jitter with b = wait x (1 + factor); exact only for factor 1/3.")
        }
        let waitAt = setting("waitDuration")?.location ?? retry.location
        imported.backoff = Backoff(
            initial: imported.policyDuration(initial, key: "backoff", what: "waitDuration", at: waitAt),
            max: imported.policyDuration(maximum, key: "backoff", what: "exponentialMaxWaitDuration", at: setting("exponentialMaxWaitDuration")?.location ?? waitAt),
            multiplier: multiplier, jitter: jitter)

        // What is retried.
        var transports: Set<TransportFailure> = []
        var statuses: Set<Int> = []
        func classes(_ key: String) -> [(String, SourceLocation)]? {
            guard let node = setting(key) else { return nil }
            guard let items = reader.list(node, key) else { return [] }
            return items.compactMap { item in reader.string(item, key).map { ($0, item.location) } }
        }
        /// Maps each named exception class, commenting each; one without an
        /// equivalent is a warning at its item. Returns the transports and
        /// statuses of those that map.
        func mapped(_ names: [(String, SourceLocation)], key: String) -> (transports: Set<TransportFailure>, statuses: Set<Int>) {
            var found: (transports: Set<TransportFailure>, statuses: Set<Int>) = ([], [])
            for (name, location) in names {
                if let mapping = exceptionClasses[name] {
                    found.transports.formUnion(mapping.transports)
                    found.statuses.formUnion(mapping.statuses)
                    imported.comment("rules", "  \(name) = \(mapping.note).")
                } else {
                    imported.comment("rules", "  \(name): no known equivalent; not represented.")
                    imported.warn(key, at: location, "exception class \(name) has no transport class or status equivalent; not imported")
                }
            }
            return found
        }
        if let retryExceptions = classes("retryExceptions") {
            imported.comment("rules", "retryExceptions mapped to transport classes and statuses:")
            (transports, statuses) = mapped(retryExceptions, key: "retryExceptions")
        } else {
            transports = allRetryable
            imported.comment("rules", "retryExceptions absent: resilience4j retries every exception, so every transport failure.")
            imported.comment("rules", "Statuses are retried only if the HTTP client throws for them: none are imported.")
        }
        if let ignored = classes("ignoreExceptions") {
            imported.comment("rules", "ignoreExceptions (never retried):")
            let never = mapped(ignored, key: "ignoreExceptions")
            transports.subtract(never.transports)
            statuses.subtract(never.statuses)
        }
        imported.retriedTransports = transports
        imported.retriedStatuses = statuses
        imported.comment("idempotency", "resilience4j retries whatever call it wraps, whatever the method.")
        for key in ["retryOnResultPredicate", "retryExceptionPredicate", "resultPredicateClass", "intervalBiFunction", "intervalFunction"] {
            if let node = setting(key) {
                imported.warn(key, at: ForeignReader.keyLocation(chosen ?? retry, key, relaxed: true) ?? node.location,
                              "\(key) is Java code the policy cannot read; not imported")
            }
        }
        imported.comment("retry_after", "resilience4j does not read server delays.")
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }
}
