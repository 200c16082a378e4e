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

    static func run(bytes: [UInt8], path: String, instance: String?) throws(InteropError) -> ImportedPolicy {
        let root = try ForeignReader.parse(bytes: bytes, path: path)
        var reader = ForeignReader(file: path)
        let retry = ForeignReader.value(root, "resilience4j").flatMap { ForeignReader.value($0, "retry") }
            ?? ForeignReader.value(root, "resilience4j.retry")
        guard let retry else {
            throw InteropError([Diagnostic(.notThisFormat, at: root.location, "expected resilience4j.retry settings (resilience4j: retry: instances: NAME:), found none")])
        }
        let instances = ForeignReader.value(retry, "instances").map(ForeignReader.entries) ?? []
        let configs = ForeignReader.value(retry, "configs").map(ForeignReader.entries) ?? []
        var chosenName: String
        var chosen: YAMLNode?
        if let instance {
            guard let match = instances.first(where: { $0.key.value == instance }) ?? configs.first(where: { $0.key.value == instance }) else {
                throw InteropError([Diagnostic(.notThisFormat, at: retry.location, "no resilience4j retry instance named \(instance)")])
            }
            chosenName = instance
            chosen = match.value
        } else if let first = instances.first ?? configs.first {
            chosenName = first.key.value
            chosen = first.value
        } else {
            throw InteropError([Diagnostic(.notThisFormat, at: retry.location, "expected resilience4j.retry.instances or configs, found none")])
        }
        var imported = ImportedPolicy(name: chosenName, source: path, format: .resilience4j, attempts: defaultMaxAttempts, backoff: .immediate)
        if instance == nil && instances.count > 1 {
            imported.warn("instances", at: instances[1].key.location, "\(instances.count) retry instances; only \(chosenName) is imported (choose one with --select NAME)")
            imported.comment("", "The file has \(instances.count) retry instances; this is \(chosenName).")
        }
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
        if let node = setting("maxAttempts"), let value = reader.integer(node, "maxAttempts", lenient: true) {
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
            multiplier = setting("exponentialBackoffMultiplier").flatMap { reader.number($0, "exponentialBackoffMultiplier", lenient: true) } ?? defaultMultiplier
            if multiplier > 100 { multiplier = 100 }
            if let cap = duration("exponentialMaxWaitDuration") {
                maximum = cap
            } else {
                // No cap: the longest wait the attempts reach.
                var longest = Double(wait.nanosecondsSaturated)
                for _ in 0..<max(attempts - 2, 0) { longest *= multiplier }
                maximum = .nanoseconds(Int64(min(longest, Double(DurationText.maximum.nanosecondsSaturated))))
                imported.comment("backoff", "exponentialMaxWaitDuration absent: no cap; max is the longest wait \(attempts) attempts reach.")
            }
            imported.comment("backoff", "Exponential: waitDuration x exponentialBackoffMultiplier^(n-1).")
        } else {
            imported.comment("backoff", "A fixed waitDuration between attempts (no jitter).")
        }
        var jitter = Backoff.Jitter.none
        var initial = wait
        if randomized {
            let factor = setting("randomizedWaitFactor").flatMap { reader.number($0, "randomizedWaitFactor", lenient: true) } ?? defaultRandomizedWaitFactor
            // resilience4j waits uniformly in [w(1-f), w(1+f)]; equal jitter is [b/2, b].
            jitter = .equal
            initial = .nanoseconds(Int64(Double(wait.nanosecondsSaturated) * (1 + factor)))
            maximum = .nanoseconds(Int64(Double(maximum.nanosecondsSaturated) * (1 + factor)))
            let at = setting("enableRandomizedWait")?.location ?? retry.location
            if abs(factor - 1.0 / 3.0) > 1e-9 {
                imported.warn("randomizedWaitFactor", at: at,
                              "resilience4j waits uniformly in [wait x (1 - \(factor)), wait x (1 + \(factor))]; imported as equal jitter [b/2, b] with b = wait x (1 + \(factor)), whose lower bound differs")
            }
            imported.comment("backoff", "Randomized wait (factor \(factor)): equal jitter with b = wait x (1 + factor); exact only for factor 1/3.")
        }
        imported.backoff = Backoff(initial: ForeignDuration.policyPrecision(initial).0, max: ForeignDuration.policyPrecision(maximum).0, multiplier: multiplier, jitter: jitter)

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

/// AWS shared config file (`~/.aws/config`): `retry_mode` and
/// `max_attempts` of one profile ("AWS SDKs and Tools reference guide,
/// Retry behavior").
enum AWSConfigImporter {
    struct Entry {
        var value: String
        var location: SourceLocation
    }

    static func run(bytes: [UInt8], path: String, profile: String?) throws(InteropError) -> ImportedPolicy {
        let text = String(decoding: bytes, as: UTF8.self)
        let wanted = profile ?? "default"
        var sections: [String: (location: SourceLocation, entries: [String: Entry])] = [:]
        var order: [String] = []
        var current: String?
        var diagnostics: [Diagnostic] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingSpaces
            let location = SourceLocation(file: path, line: index + 1, column: 1)
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]") else {
                    diagnostics.append(Diagnostic(.invalidValue, at: location, "expected a section header such as [profile name], found \(trimmed.prefix(40))"))
                    continue
                }
                var name = String(trimmed.dropFirst().dropLast()).trimmingCharacters()
                if name.hasPrefix("profile ") { name = String(name.dropFirst("profile ".count)).trimmingCharacters() }
                current = name
                if sections[name] == nil { sections[name] = (location, [:]); order.append(name) }
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                // Continuation lines of nested settings (s3 =\n  key = value) start with spaces.
                if line.first == " " || line.first == "\t" { continue }
                diagnostics.append(Diagnostic(.invalidValue, at: location, "expected key = value, found \(trimmed.prefix(40))"))
                continue
            }
            if line.first == " " || line.first == "\t" { continue }  // a nested setting
            let key = Substring(trimmed[..<equals]).trimmingSpaces
            let value = Substring(trimmed[trimmed.index(after: equals)...]).trimmingSpaces
            guard let section = current else {
                diagnostics.append(Diagnostic(.invalidValue, at: location, "expected a [section] before \(key)"))
                continue
            }
            let column = line.distance(from: line.startIndex, to: line.firstIndex { $0 != " " && $0 != "\t" } ?? line.startIndex) + 1
            sections[section]?.entries[key] = Entry(value: value, location: SourceLocation(file: path, line: index + 1, column: column))
        }
        if !diagnostics.isEmpty { throw InteropError(diagnostics) }
        guard let section = sections[wanted] else {
            let known = order.isEmpty ? "none" : order.joined(separator: ", ")
            throw InteropError([Diagnostic(.notThisFormat, at: Importer.start(path), "expected a profile \(wanted) in the AWS config file, found \(known)")])
        }
        var imported = ImportedPolicy(name: "aws-\(wanted)", source: path, format: .awsConfig, attempts: 3, backoff: .immediate)
        var mode = "legacy"
        if let entry = section.entries["retry_mode"] {
            guard ["legacy", "standard", "adaptive"].contains(entry.value) else {
                throw InteropError([Diagnostic(.invalidValue, at: entry.location, "retry_mode: expected legacy, standard or adaptive, found \(entry.value.prefix(40))")])
            }
            mode = entry.value
        } else {
            imported.comment("", "retry_mode absent: the reference guide's default is legacy; some SDKs default to standard.")
            imported.warn("retry_mode", at: section.location, "retry_mode is not set: its default depends on the SDK (legacy in the reference guide); imported as legacy")
        }
        imported.comment("", "retry_mode \(mode) (AWS SDKs and Tools reference guide, Retry behavior).")
        var attempts = mode == "legacy" ? 5 : 3
        if let entry = section.entries["max_attempts"] {
            guard let value = Int(entry.value), value >= 1 else {
                throw InteropError([Diagnostic(.invalidValue, at: entry.location, "max_attempts: expected an integer of at least 1, found \(entry.value.prefix(40))")])
            }
            if value > 100 { imported.warn("max_attempts", at: entry.location, "the policy format allows 100 attempts; \(value) imported as 100") }
            attempts = min(value, 100)
            imported.comment("attempts", "max_attempts counts the first attempt too.")
        } else {
            imported.comment("attempts", mode == "legacy" ? "max_attempts absent: legacy mode's default 5 for most SDKs (3 in some)." : "max_attempts absent: \(mode) mode's default 3.")
        }
        imported.attempts = attempts
        imported.backoff = Backoff(initial: .seconds(1), max: .seconds(20), multiplier: 2, jitter: .full)
        imported.comment("backoff", "min(b x 2^i, 20s) seconds with b random in [0, 1]: full jitter from 1s, capped at 20s.")
        imported.retriedStatuses = [429, 500, 502, 503, 504]
        imported.retriedTransports = Set(TransportFailure.allCases).subtracting([.cancelled, .invalidURL, .decoding, .unknown])
        imported.comment("rules", "Transient errors (500, 502, 503, 504, connection errors, timeouts) and throttling (429).")
        imported.comment("rules", "Throttling error codes in a 400 body (Throttling, ThrottlingException...) cannot be matched by status.")
        imported.comment("idempotency", "AWS SDKs retry every operation.")
        imported.comment("retry_after", "AWS SDKs do not read Retry-After.")
        switch mode {
        case "standard":
            imported.budget = RetryBudgetConfiguration(capacity: 500, retryCost: 5, timeoutRetryCost: 10, successRefund: 1)
            imported.comment("budget", "Standard mode's retry quota: 500 tokens, a retry costs 5, a timeout retry 10.")
        case "adaptive":
            imported.budget = RetryBudgetConfiguration(capacity: 500, retryCost: 5, timeoutRetryCost: 10, successRefund: 1)
            imported.comment("budget", "Adaptive mode is standard mode plus client-side rate limiting, which is not represented.")
            imported.warn("retry_mode", at: section.entries["retry_mode"]!.location, "adaptive mode's client-side rate limiting has no policy equivalent; imported as standard")
        default:
            imported.comment("budget", "Legacy mode: the quota and backoff are SDK-specific; standard mode's backoff is used, no quota.")
            imported.warn("retry_mode", at: section.entries["retry_mode"]?.location ?? section.location, "legacy mode's backoff and quota differ between SDKs; imported with standard mode's backoff and no quota")
        }
        return imported
    }
}

extension String {
    func trimmingCharacters() -> String { Substring(self).trimmingSpaces }
}
