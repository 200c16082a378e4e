import RetryPolicyCore
import RetryPolicyYAML

/// A gRPC service config read and validated as gRPC's C core (grpcio and
/// the other wrapped languages) validates it when a channel takes it:
/// every `methodConfig`, not only the one imported, so a file gRPC rejects
/// is refused whole. The rules and their messages follow grpc-core's
/// `service_config_impl.cc`, `retry_service_config.cc` and its JSON
/// loaders; GRPCRealFileTests holds the reading to grpcio's verdicts.
struct GRPCServiceConfig {
    struct Name: Hashable {
        var service: String
        var method: String

        /// `service/method`, `service` for a whole service, or `*` for the
        /// default method config.
        var text: String {
            if service.isEmpty { return "*" }
            return method.isEmpty ? service : service + "/" + method
        }
    }

    struct RetryPolicy {
        var node: YAMLNode
        var maxAttempts: Int
        var maxAttemptsNode: YAMLNode
        var initialBackoff: Duration
        var initialBackoffNode: YAMLNode
        var maxBackoff: Duration
        var maxBackoffNode: YAMLNode
        var multiplier: Double
        var multiplierNode: YAMLNode
        var codes: [GRPCStatus]
        var codesNode: YAMLNode
    }

    /// gRFC A6 hedging. gRPC's C core and grpc-go ignore `hedgingPolicy`;
    /// grpc-java applies it. An invalid one is therefore not an error.
    struct HedgingPolicy {
        var node: YAMLNode
        var maxAttempts: Int
        var delay: Duration
        var delayNode: YAMLNode?
        var nonFatalCodes: [GRPCStatus]
    }

    struct MethodConfig {
        var index: Int
        var node: YAMLNode
        var names: [Name]
        var timeout: Duration?
        var timeoutNode: YAMLNode?
        var retryPolicy: RetryPolicy?
        var hedgingPolicy: HedgingPolicy?
        /// Why a present `hedgingPolicy` cannot be used.
        var hedgingProblem: (location: SourceLocation, message: String)?
    }

    struct Throttling {
        var node: YAMLNode
        var maxTokens: Int
        var maxTokensNode: YAMLNode
        /// tokenRatio in thousandths, as gRPC keeps it.
        var thousandths: Int
        var ratioNode: YAMLNode
        /// Whether decimals after the third were dropped.
        var truncated: Bool
    }

    var methodConfigs: [MethodConfig] = []
    var throttling: Throttling?
    /// The DNS TXT record form's choice that holds this config, when the
    /// file is one (`[{"clientLanguage": [...], "serviceConfig": {...}}]`).
    var choice: YAMLNode?

    /// Reads the document `root` (a service config or the DNS TXT record
    /// form), collecting every error into `reader`.
    static func read(_ root: YAMLNode, reader: inout ForeignReader) -> GRPCServiceConfig {
        var config = GRPCServiceConfig()
        var serviceConfig = root
        if let (choice, inner) = dnsChoice(root, reader: &reader) {
            config.choice = choice
            guard let inner else { return config }
            serviceConfig = inner
        }
        guard reader.grpcObject(serviceConfig, "service config") else { return config }
        if let node = ForeignReader.value(serviceConfig, "methodConfig"), reader.grpcArray(node, "methodConfig") {
            var seen: [Name: Int] = [:]
            for (index, item) in ForeignReader.items(node).enumerated() {
                if let methodConfig = readMethodConfig(item, index: index, seen: &seen, reader: &reader) {
                    config.methodConfigs.append(methodConfig)
                }
            }
        }
        if let node = ForeignReader.value(serviceConfig, "retryThrottling") {
            config.throttling = readThrottling(node, reader: &reader)
        }
        if let node = ForeignReader.value(serviceConfig, "loadBalancingPolicy") {
            _ = reader.grpcString(node, "loadBalancingPolicy")
        }
        if let node = ForeignReader.value(serviceConfig, "loadBalancingConfig") {
            readLoadBalancingConfig(node, reader: &reader)
        }
        if let node = ForeignReader.value(serviceConfig, "healthCheckConfig"), reader.grpcObject(node, "healthCheckConfig"),
            let name = ForeignReader.value(node, "serviceName")
        {
            _ = reader.grpcString(name, "healthCheckConfig.serviceName")
        }
        return config
    }

    /// `loadBalancingConfig` as gRPC's C core checks it: a list of
    /// entries, each naming exactly one policy; an empty list names no
    /// policy gRPC knows, and the whole service config is rejected.
    static func readLoadBalancingConfig(_ node: YAMLNode, reader: inout ForeignReader) {
        guard reader.grpcArray(node, "loadBalancingConfig") else { return }
        let items = ForeignReader.items(node)
        if items.isEmpty {
            reader.error(
                .invalidValue, at: node.location, "loadBalancingConfig: expected at least one policy, found an empty list (gRPC: \"No known policies in list\"; it rejects the whole service config)",
                suggestion: "name a policy, such as [{\"round_robin\": {}}], or remove loadBalancingConfig for gRPC's default pick_first")
        }
        for (index, item) in items.enumerated() where reader.grpcObject(item, "loadBalancingConfig[\(index)]") {
            switch ForeignReader.entries(item).count {
            case 0: reader.error(.invalidValue, item, "loadBalancingConfig[\(index)]: no policy found in child entry")
            case 1: break
            default: reader.error(.invalidValue, item, "loadBalancingConfig[\(index)]: oneOf violation (an entry names exactly one policy)")
            }
        }
    }

    /// The DNS TXT record form (gRFC A2): a list of choices, or one
    /// choice, each `{clientLanguage, percentage, clientHostname,
    /// serviceConfig}`. The first choice whose `serviceConfig` is set is
    /// the one read; a resolver that matches languages and hosts may pick
    /// another, which the import comments say.
    static func dnsChoice(_ root: YAMLNode, reader: inout ForeignReader) -> (choice: YAMLNode, serviceConfig: YAMLNode?)? {
        let choices: [YAMLNode]
        switch root {
        case .sequence(let items, _): choices = items
        case .mapping where ForeignReader.value(root, "serviceConfig") != nil: choices = [root]
        default: return nil
        }
        guard let first = choices.first else {
            reader.error(.noRetrySettings, root, "expected service config choices ([{\"clientLanguage\": ..., \"serviceConfig\": {...}}]), found an empty list")
            return (root, nil)
        }
        for (index, choice) in choices.enumerated() {
            guard reader.grpcObject(choice, "choice[\(index)]") else { continue }
            if let languages = ForeignReader.value(choice, "clientLanguage"), reader.grpcArray(languages, "choice[\(index)].clientLanguage") {
                for (position, language) in ForeignReader.items(languages).enumerated() {
                    _ = reader.grpcString(language, "choice[\(index)].clientLanguage[\(position)]")
                }
            }
            if let percentage = ForeignReader.value(choice, "percentage"),
                let value = reader.grpcInteger(percentage, "choice[\(index)].percentage", in: 0...100)
            {
                _ = value
            }
            if let node = ForeignReader.value(choice, "serviceConfig") {
                return (choice, node)
            }
            reader.error(.missingField, choice, "choice[\(index)]: serviceConfig is required")
        }
        return (first, nil)
    }

    static func readMethodConfig(_ node: YAMLNode, index: Int, seen: inout [Name: Int], reader: inout ForeignReader) -> MethodConfig? {
        let what = "methodConfig[\(index)]"
        guard reader.grpcObject(node, what) else { return nil }
        var config = MethodConfig(index: index, node: node, names: [])
        if let namesNode = ForeignReader.value(node, "name"), reader.grpcArray(namesNode, what + ".name") {
            for (position, item) in ForeignReader.items(namesNode).enumerated() {
                let itemWhat = "\(what).name[\(position)]"
                guard reader.grpcObject(item, itemWhat) else { continue }
                let service = ForeignReader.value(item, "service").flatMap { reader.grpcString($0, itemWhat + ".service") } ?? ""
                let method = ForeignReader.value(item, "method").flatMap { reader.grpcString($0, itemWhat + ".method") } ?? ""
                if service.isEmpty && !method.isEmpty {
                    reader.error(.invalidValue, item, "\(itemWhat): method name populated without service name")
                    continue
                }
                let name = Name(service: service, method: method)
                if seen[name] != nil {
                    let message = service.isEmpty ? "duplicate default method config" : "multiple method configs for path /\(service)/\(method)"
                    reader.error(.invalidValue, item, "\(itemWhat): \(message) (first in methodConfig[\(seen[name]!)])")
                } else {
                    seen[name] = index
                }
                config.names.append(name)
            }
        }
        if let value = ForeignReader.value(node, "timeout"), let timeout = reader.grpcDuration(value, what + ".timeout") {
            config.timeout = timeout
            config.timeoutNode = value
        }
        if let value = ForeignReader.value(node, "waitForReady") { _ = reader.grpcBool(value, what + ".waitForReady") }
        for key in ["maxRequestMessageBytes", "maxResponseMessageBytes"] {
            if let value = ForeignReader.value(node, key) { _ = reader.grpcInteger(value, "\(what).\(key)", in: 0...Int(UInt32.max)) }
        }
        if let value = ForeignReader.value(node, "retryPolicy") {
            config.retryPolicy = readRetryPolicy(value, what: what + ".retryPolicy", reader: &reader)
        }
        if let value = ForeignReader.value(node, "hedgingPolicy") {
            // Read with a reader of its own: gRPC's C core ignores the
            // field, so its problems do not make the file invalid.
            var hedgingReader = ForeignReader(file: reader.file)
            let hedging = readHedgingPolicy(value, what: what + ".hedgingPolicy", reader: &hedgingReader)
            if let problem = hedgingReader.diagnostics.first {
                config.hedgingProblem = (problem.location, problem.message)
            } else {
                config.hedgingPolicy = hedging
            }
        }
        return config
    }

    static func readRetryPolicy(_ node: YAMLNode, what: String, reader: inout ForeignReader) -> RetryPolicy? {
        guard reader.grpcObject(node, what) else { return nil }
        func required(_ key: String) -> YAMLNode? {
            if let value = ForeignReader.value(node, key) { return value }
            if let other = ForeignReader.entries(node).first(where: { $0.key.value.lowercased() == key.lowercased() }) {
                // grpc-go matches keys ignoring case (Go's encoding/json); gRPC's C core does not.
                reader.error(.missingField, at: other.key.location, "\(what).\(key): field not present; found \(other.key.value), which only grpc-go reads as \(key)",
                             suggestion: "write \(key): gRPC's C core matches keys exactly")
            } else {
                reader.error(.missingField, node, "\(what).\(key): field not present")
            }
            return nil
        }
        var maxAttempts: (Int, YAMLNode)?
        if let value = required("maxAttempts"), let attempts = reader.grpcInteger(value, what + ".maxAttempts", in: Int(Int32.min)...Int(Int32.max)) {
            if attempts < 2 {
                reader.error(.invalidValue, value, "\(what).maxAttempts: must be at least 2, found \(attempts)")
            } else {
                maxAttempts = (attempts, value)
            }
        }
        var backoffs: [String: (Duration, YAMLNode)] = [:]
        for key in ["initialBackoff", "maxBackoff"] {
            guard let value = required(key), let duration = reader.grpcDuration(value, "\(what).\(key)") else { continue }
            // gRPC keeps backoffs in whole milliseconds.
            if duration < .milliseconds(1) {
                reader.error(.invalidValue, value, "\(what).\(key): must be greater than 0 (gRPC counts whole milliseconds), found \(ForeignDuration.protoText(duration))")
            } else {
                backoffs[key] = (duration, value)
            }
        }
        var multiplier: (Double, YAMLNode)?
        if let value = required("backoffMultiplier"), let number = reader.grpcNumber(value, what + ".backoffMultiplier") {
            if number.isNaN {
                // gRPC's C core lets NaN through its "> 0" check; a backoff
                // that is not a number has no meaning to import.
                reader.error(.invalidValue, value, "\(what).backoffMultiplier: expected a number greater than 0, found NaN")
            } else if !(number > 0) {
                reader.error(.invalidValue, value, "\(what).backoffMultiplier: must be greater than 0, found \(number)")
            } else {
                multiplier = (number, value)
            }
        }
        var codes: ([GRPCStatus], YAMLNode)?
        if let value = required("retryableStatusCodes") {
            codes = readCodes(value, what: what + ".retryableStatusCodes", reader: &reader).map { ($0, value) }
            if codes?.0.isEmpty == true { codes = nil }
        }
        if let value = ForeignReader.value(node, "perAttemptRecvTimeout") { _ = reader.grpcDuration(value, what + ".perAttemptRecvTimeout") }
        guard let maxAttempts, let initial = backoffs["initialBackoff"], let maximum = backoffs["maxBackoff"], let multiplier, let codes else {
            return nil
        }
        return RetryPolicy(
            node: node, maxAttempts: maxAttempts.0, maxAttemptsNode: maxAttempts.1,
            initialBackoff: initial.0, initialBackoffNode: initial.1, maxBackoff: maximum.0, maxBackoffNode: maximum.1,
            multiplier: multiplier.0, multiplierNode: multiplier.1, codes: codes.0, codesNode: codes.1)
    }

    /// gRFC A6's hedgingPolicy, validated as grpc-java does (maxAttempts
    /// at least 2, hedgingDelay a non-negative duration, codes known).
    static func readHedgingPolicy(_ node: YAMLNode, what: String, reader: inout ForeignReader) -> HedgingPolicy? {
        guard reader.grpcObject(node, what) else { return nil }
        guard let attemptsNode = ForeignReader.value(node, "maxAttempts") else {
            reader.error(.missingField, node, "\(what).maxAttempts: field not present")
            return nil
        }
        guard let attempts = reader.grpcInteger(attemptsNode, what + ".maxAttempts", in: Int(Int32.min)...Int(Int32.max)) else { return nil }
        guard attempts >= 2 else {
            reader.error(.invalidValue, attemptsNode, "\(what).maxAttempts: must be at least 2, found \(attempts)")
            return nil
        }
        var delay: Duration = .zero
        let delayNode = ForeignReader.value(node, "hedgingDelay")
        if let delayNode {
            guard let parsed = reader.grpcDuration(delayNode, what + ".hedgingDelay") else { return nil }
            delay = parsed
        }
        var codes: [GRPCStatus] = []
        if let value = ForeignReader.value(node, "nonFatalStatusCodes") {
            guard let read = readCodes(value, what: what + ".nonFatalStatusCodes", reader: &reader, allowEmpty: true) else { return nil }
            codes = read
        }
        return HedgingPolicy(node: node, maxAttempts: attempts, delay: delay, delayNode: delayNode, nonFatalCodes: codes)
    }

    /// Status code names; gRPC's C core takes upper-case names only and
    /// refuses numbers ("is not a string").
    static func readCodes(_ node: YAMLNode, what: String, reader: inout ForeignReader, allowEmpty: Bool = false) -> [GRPCStatus]? {
        guard reader.grpcArray(node, what) else { return nil }
        let items = ForeignReader.items(node)
        if items.isEmpty && !allowEmpty { reader.error(.invalidValue, node, "\(what): must be non-empty") }
        var codes: [GRPCStatus] = []
        var failed = false
        for (index, item) in items.enumerated() {
            guard let name = reader.grpcString(item, "\(what)[\(index)]") else { failed = true; continue }
            guard let code = GRPCStatus(name: name) else {
                reader.error(.invalidValue, item, "\(what)[\(index)]: failed to parse status code: expected a name such as UNAVAILABLE, found \"\(String(name.prefix(40)))\"")
                failed = true
                continue
            }
            if !codes.contains(code) { codes.append(code) }
        }
        if failed && !allowEmpty && codes.isEmpty && !items.isEmpty { reader.error(.invalidValue, node, "\(what): must be non-empty") }
        return failed ? nil : codes
    }

    static func readThrottling(_ node: YAMLNode, reader: inout ForeignReader) -> Throttling? {
        guard reader.grpcObject(node, "retryThrottling") else { return nil }
        var maxTokens: (Int, YAMLNode)?
        if let value = ForeignReader.value(node, "maxTokens") {
            if let tokens = reader.grpcInteger(value, "retryThrottling.maxTokens", in: 0...Int(UInt32.max), nonNegative: true) {
                if tokens == 0 {
                    reader.error(.invalidValue, value, "retryThrottling.maxTokens: must be greater than 0")
                } else {
                    maxTokens = (tokens, value)
                }
            }
        } else {
            reader.error(.missingField, node, "retryThrottling.maxTokens: field not present")
        }
        var ratio: (Int, Bool, YAMLNode)?
        if let value = ForeignReader.value(node, "tokenRatio") {
            if let (thousandths, truncated) = reader.grpcTokenRatio(value) { ratio = (thousandths, truncated, value) }
        } else {
            reader.error(.missingField, node, "retryThrottling.tokenRatio: field not present")
        }
        guard let maxTokens, let ratio else { return nil }
        return Throttling(node: node, maxTokens: maxTokens.0, maxTokensNode: maxTokens.1, thousandths: ratio.0, ratioNode: ratio.2, truncated: ratio.1)
    }
}
