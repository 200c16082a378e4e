import RetryPolicyCore

/// Turns a located YAML tree into a ``Policy`` or a ``PolicyStack``,
/// strictly: every unknown key, wrong type, missing key and bad value is a
/// diagnostic, and any diagnostic means no policy (a half-understood policy
/// must never run).
struct PolicyDecoder {
    var reader = FieldReader()

    /// Decodes a whole document; `path` locates an empty file.
    mutating func decodeDocument(_ root: YAMLNode?, path: String) -> PolicyDocument? {
        guard let root else {
            reader.report(.documentCount, at: SourceLocation(file: path, line: 1, column: 1),
                          "expected a policy document with 'version' and 'name', found an empty file")
            return nil
        }
        guard case .mapping = root else {
            reader.expected("a mapping with 'version' and 'name' at the top of the file", for: "", found: root)
            return nil
        }
        if root["stack"] != nil {
            return decodeStack(root).map(PolicyDocument.stack)
        }
        return decodePolicy(root, path: path).map(PolicyDocument.policy)
    }

    // MARK: Header

    private mutating func version(_ fields: Fields) {
        guard let node = fields["version"] else { return }
        guard case .scalar(let scalar) = node, case .integer(let value) = scalar.resolved else {
            var suggestion: String?
            if case .scalar(let scalar) = node, scalar.isQuoted { suggestion = "write 1 without quotes" }
            reader.expected("the format version 1", for: "version", found: node, suggestion: suggestion)
            return
        }
        if value != 1 {
            reader.expected("the format version 1 (the only one)", for: "version", found: node, rule: .unsupportedVersion)
        }
    }

    // MARK: Stack files

    private mutating func decodeStack(_ root: YAMLNode) -> PolicyStack? {
        if case .mapping(let entries, _) = root {
            for entry in entries where PolicyKeys.policyOnly.contains(entry.key.value) {
                reader.report(
                    .wrongDocumentKind, at: entry.key.location,
                    "expected only stack keys (\(PolicyKeys.stack.joined(separator: ", "))) in a file with 'stack', found the policy key '\(entry.key.value)'",
                    suggestion: "move the policy into its own file and list it as a layer")
            }
        }
        let allowedHere = PolicyKeys.stack + PolicyKeys.policyOnly.sorted()  // policy keys reported above
        guard let fields = reader.fields(root, at: "", allowed: allowedHere, required: ["version", "name", "stack"]) else { return nil }
        version(fields)
        let name = fields["name"].flatMap { reader.name($0, at: "name") }
        if let node = fields["description"] { _ = reader.string(node, at: "description") }
        var layers: [PolicyStack.Layer] = []
        if let node = fields["stack"], let items = reader.list(node, at: "stack", what: "a list of layers", nonEmpty: true) {
            for (index, item) in items.enumerated() {
                let keyPath = "stack[\(index)]"
                guard let layer = reader.fields(item, at: keyPath, allowed: PolicyKeys.layer, required: PolicyKeys.layerRequired,
                                                what: "a layer mapping with 'name' and 'policy'") else { continue }
                let layerName = layer["name"].flatMap { reader.name($0, at: layer.path("name")) }
                let policy = layer["policy"].flatMap { reader.string($0, at: layer.path("policy"), what: "a policy file path") }
                let selection = layer["select"].flatMap {
                    reader.string($0, at: layer.path("select"), what: "the name of a method config, route or instance in the layer's file")
                }
                if let layerName, let policy {
                    layers.append(PolicyStack.Layer(name: layerName, policyPath: policy, selection: selection, location: layer.location))
                }
            }
        }
        var maxAmplification = 10
        if let node = fields["max_amplification"],
            let value = reader.integer(node, at: "max_amplification", in: PolicyBounds.amplification)
        {
            maxAmplification = value
        }
        guard !reader.hasProblems, let name else { return nil }
        return PolicyStack(name: name, layers: layers, maxAmplification: maxAmplification, location: fields.location)
    }

    // MARK: Policy files

    private mutating func decodePolicy(_ root: YAMLNode, path: String) -> Policy? {
        guard let fields = reader.fields(root, at: "", allowed: PolicyKeys.policy, required: ["version", "name"]) else { return nil }
        // `extends` lends settings, not identity: every file states its own
        // format version (to be read at all) and its own name (two policies
        // must never report under one name), as the JSON Schema requires.
        for key in ["version", "name"] {
            if let entry = fields.entries[key], entry.key.location.file != path {
                reader.report(.missingKey, at: fields.location, "missing required key '\(key)' at the top level",
                              suggestion: "write it in this file too; 'extends' lends settings, not the \(key)")
            }
        }
        version(fields)
        let name = fields["name"].flatMap { reader.name($0, at: "name") }
        var policy = Policy(name: name ?? "", location: fields.location)
        policy.backoff = Backoff(initial: .zero, max: .zero)
        if let node = fields["description"] { policy.description = reader.string(node, at: "description") }
        if let node = fields["extends"], let path = reader.string(node, at: "extends", what: "a policy file path"), path.isEmpty {
            reader.expected("a policy file path", for: "extends", found: node, rule: .invalidValue)
        }
        if let node = fields["platform"], let platform = reader.string(node, at: "platform", what: "a platform name") {
            if reader.identifier(platform, at: node.location, keyPath: "platform", what: "a platform name") {
                policy.platform = platform
            }
        }
        if let node = fields["attempts"], let attempts = reader.integer(node, at: "attempts", describing: PolicyBounds.attempts) {
            policy.attempts = attempts
        }
        if let node = fields["idempotency"], let idempotency = idempotency(node) { policy.idempotency = idempotency }
        if let node = fields["backoff"], let backoff = backoff(node) { policy.backoff = backoff }
        if let node = fields["retry_after"], let retryAfter = retryAfter(node) { policy.retryAfter = retryAfter }
        if let node = fields["timeouts"], let timeouts = timeoutBudget(node, at: "timeouts") { policy.timeouts = timeouts }
        if let node = fields["endpoints"] { policy.endpoints = endpoints(node) }
        var known = Set(SDKError.Kind.standard)
        if let node = fields["errors"] {
            let (names, declared) = errorNames(node)
            policy.errorNames = names
            policy.declaredErrors = declared
            known.formUnion(declared)
        }
        if let node = fields["conditions"] { policy.conditions = conditions(node) }
        let declaredConditions = Set(policy.conditions)
        if let node = fields["budget"] { policy.budget = budget(node, known: known) }
        if let node = fields["rules"], let items = reader.list(node, at: "rules", what: "a list of rules") {
            for (index, item) in items.enumerated() {
                if let rule = rule(item, at: "rules[\(index)]", known: known, conditions: declaredConditions) {
                    policy.rules.append(rule)
                }
            }
        }
        if let node = fields["default"] { policy.defaultRule = defaultRule(node, known: known) }
        if let node = fields["breaker"] {
            policy.breaker = breaker(node, ruleCount: fields["rules"].map(Self.itemCount) ?? 0, known: known)
        }
        if let node = fields["hedging"] { policy.hedging = hedging(node) }
        if let node = fields["rate_limit"] { policy.rateLimit = rateLimit(node, known: known) }
        if let node = fields["parity"], let items = reader.list(node, at: "parity", what: "a list of policy file paths") {
            policy.parity = items.compactMap { reader.string($0, at: "parity", what: "a policy file path") }
        }
        policy.keyLocations = reader.keyLocations
        // The ranges, and what only the whole policy shows, by the checks a
        // policy built in code passes too. A problem with a value read is
        // reported at the value even when the file has other problems
        // (every mistake in one run), unless one is reported there already.
        // A range problem without one is of a value the file does not state
        // (`throttling_retry_cost` taking `retry_cost`'s), reported where
        // it is stated; the rest only of a policy read whole.
        let complete = !reader.hasProblems && name != nil
        let reported = Set(reader.diagnostics.map(\.location))
        for problem in policy.problems {
            let value = reader.values[problem.keyPath]
            if let value, reported.contains(value.location) { continue }
            guard value != nil || (complete && problem.expected == nil) else { continue }
            let message = value.flatMap { value in problem.expected.map { "expected \($0), found \(value.found)" } } ?? problem.message
            reader.report(
                LoaderRule(rawValue: problem.id) ?? .invalidValue, at: value?.location ?? Self.location(of: problem.keyPath, in: policy),
                FieldReader.prefix(problem.keyPath) + message, suggestion: problem.suggestion)
        }
        return reader.hasProblems || name == nil ? nil : policy
    }

    /// Where the key at `keyPath` is written, or the nearest key above it.
    static func location(of keyPath: String, in policy: Policy) -> SourceLocation {
        var path = Substring(keyPath)
        while !path.isEmpty {
            if let location = policy.keyLocations[String(path)] { return location }
            guard let cut = path.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            path = path[..<cut]
        }
        return policy.location ?? SourceLocation(file: "", line: 1, column: 1)
    }

    private mutating func idempotency(_ node: YAMLNode) -> Idempotency? {
        guard let fields = reader.fields(node, at: "idempotency", allowed: PolicyKeys.idempotency) else { return nil }
        var result = Idempotency(isExplicit: true, location: fields.location)
        if let node = fields["methods"], let methods = reader.methods(node, at: fields.path("methods")) {
            result.retryableMethods = methods
        }
        if let node = fields["honor_idempotent_requests"], let honor = reader.bool(node, at: fields.path("honor_idempotent_requests")) {
            result.honorIdempotentRequests = honor
        }
        return result
    }

    private mutating func backoff(_ node: YAMLNode) -> Backoff? {
        guard let fields = reader.fields(node, at: "backoff", allowed: PolicyKeys.backoff) else { return nil }
        let initial = fields["initial"].flatMap { reader.duration($0, at: fields.path("initial")) } ?? .zero
        // Every shape and its parameter come from `Backoff.Growth.fileShapes`.
        let shapes = Backoff.Growth.fileShapes
        var shape = shapes[0]
        if let node = fields["shape"], let name = reader.choice(node, at: fields.path("shape"), among: shapes.map(\.name)) {
            shape = shapes.first { $0.name == name }!
        }
        let parameter = shape.parameter
        // Another shape's parameter would be ignored: refused, so the
        // policy means what it says.
        for other in shapes where other.name != shape.name {
            let key = other.parameter.key
            guard key != parameter.key, let entry = fields.entries[key] else { continue }
            reader.report(
                .keyConflict, at: entry.key.location,
                "backoff.\(key): applies only to shape \(other.name), found shape \(shape.name)",
                suggestion: fields["shape"] == nil
                    ? "add 'shape: \(other.name)', or use '\(parameter.key)' for \(Self.article(shape.name)) \(shape.name) backoff"
                    : "\(Self.article(shape.name)) \(shape.name) backoff grows by '\(parameter.key)'; remove '\(key)'")
        }
        var value = parameter.fileDefault
        if let node = fields[parameter.key] {
            let keyPath = fields.path(parameter.key)
            switch parameter.values {
            case .number(let range): value = reader.number(node, at: keyPath, describing: range).map { .number($0) }
            case .duration: value = reader.duration(node, at: keyPath).map { .duration($0) }
            }
        } else if value == nil {
            reader.report(
                .missingKey, at: fields.location,
                "missing required key '\(parameter.key)' in 'backoff' (shape \(shape.name) \(parameter.whyRequired))",
                suggestion: parameter.suggestion)
        }
        // A value that did not read was reported; the shape still decodes.
        let growth = shape.growth(value ?? parameter.fileDefault ?? parameter.values.zero) ?? Backoff.Growth.named[0]
        var result = Backoff(initial: initial, max: initial, growth: growth, location: fields.location)
        // A max below initial is well-formed; lint reports it (RP104).
        if let node = fields["max"], let max = reader.duration(node, at: fields.path("max")) { result.max = max }
        if let node = fields["jitter"], let jitter = reader.choice(node, at: fields.path("jitter"), of: Backoff.Jitter.self) {
            result.jitter = jitter
        }
        // A min above max is the validator's to report, at min.
        if let node = fields["min"], let min = reader.duration(node, at: fields.path("min")) { result.min = min }
        return result
    }

    /// `a` or `an` before `word`.
    static func article(_ word: String) -> String {
        word.first.map { "aeiou".contains($0) } == true ? "an" : "a"
    }

    private mutating func retryAfter(_ node: YAMLNode) -> RetryAfterPolicy? {
        guard let fields = reader.fields(node, at: "retry_after", allowed: PolicyKeys.retryAfter) else { return nil }
        var result = RetryAfterPolicy(location: fields.location)
        if let node = fields["honor"], let honor = reader.bool(node, at: fields.path("honor")) { result.honor = honor }
        if let node = fields["cap"] { result.cap = reader.duration(node, at: fields.path("cap")) }
        if let node = fields["above_cap"], let value = reader.choice(node, at: fields.path("above_cap"), of: RetryAfterPolicy.AboveCap.self) {
            result.aboveCap = value
        }
        if let node = fields["combine"], let value = reader.choice(node, at: fields.path("combine"), of: RetryAfterPolicy.Combine.self) {
            result.combine = value
        }
        if let node = fields["cooldown"], let value = reader.choice(node, at: fields.path("cooldown"), of: RetryAfterPolicy.Cooldown.self) {
            result.cooldown = value
        }
        if let node = fields["headers"], let items = reader.list(node, at: fields.path("headers"), what: "a list of headers") {
            var headers: [RetryAfterPolicy.Header] = []
            for (index, item) in items.enumerated() {
                let keyPath = "retry_after.headers[\(index)]"
                guard let header = reader.fields(item, at: keyPath, allowed: PolicyKeys.header, required: ["name"],
                                                 what: "a header mapping with 'name' and 'format'") else { continue }
                var format = RetryAfterPolicy.Header.Format.http
                if let node = header["format"], let value = reader.choice(node, at: header.path("format"), of: RetryAfterPolicy.Header.Format.self) {
                    format = value
                }
                if let node = header["name"], let name = reader.string(node, at: header.path("name"), what: "a header name") {
                    if HTTPToken.isValid(name) {
                        headers.append(RetryAfterPolicy.Header(name: name, format: format))
                    } else {
                        reader.expected("a header name (letters, digits and !#$%&'*+-.^_`|~)", for: header.path("name"),
                                        found: node, rule: .invalidValue)
                    }
                }
            }
            result.headers = headers
        }
        return result
    }

    private mutating func timeoutBudget(_ node: YAMLNode, at keyPath: String) -> TimeoutBudget? {
        guard let fields = reader.fields(node, at: keyPath, allowed: PolicyKeys.timeouts) else { return nil }
        var result = TimeoutBudget(location: fields.location)
        if let node = fields["per_attempt"] { result.perAttempt = reader.duration(node, at: fields.path("per_attempt"), positive: true) }
        if let node = fields["total"] { result.total = reader.duration(node, at: fields.path("total"), positive: true) }
        return result
    }

    private mutating func endpoints(_ node: YAMLNode) -> [String: TimeoutBudget] {
        guard case .mapping(let entries, _) = node else {
            reader.expected("a mapping from endpoint names to timeouts", for: "endpoints", found: node)
            return [:]
        }
        var result: [String: TimeoutBudget] = [:]
        for entry in entries {
            if entry.key.value.isEmpty {
                reader.report(.invalidValue, at: entry.key.location, "endpoints: expected an endpoint name, found an empty key")
                continue
            }
            if let budget = timeoutBudget(entry.value, at: "endpoints.\(YAMLScalar.abbreviated(entry.key.value))") {
                result[entry.key.value] = budget
            }
        }
        return result
    }

    /// How many items a list holds (0 for anything else).
    static func itemCount(_ node: YAMLNode) -> Int {
        if case .sequence(let items, _) = node { items.count } else { 0 }
    }

    private mutating func budget(_ node: YAMLNode, known: Set<SDKError.Kind>) -> RetryBudgetConfiguration? {
        guard let fields = reader.fields(node, at: "budget", allowed: PolicyKeys.budget) else { return nil }
        var preset: BudgetPreset?
        if let node = fields["preset"] {
            preset = reader.choice(node, at: fields.path("preset"), of: BudgetPreset.self)
            if preset == nil { return nil }
        }
        if preset?.ratio != nil || (preset == nil && PolicyKeys.ratioBudget.contains { fields.entries[$0] != nil }) {
            return ratioBudget(fields, preset: preset)
        }
        for key in PolicyKeys.ratioBudget {
            guard let entry = fields.entries[key] else { continue }
            reader.report(
                .keyConflict, at: entry.key.location,
                "budget.\(key): applies only to a ratio budget, found preset \(preset?.rawValue ?? "")",
                suggestion: "choose preset finagle, envoy or gateway-api, or leave out preset for a ratio budget of your own")
        }
        if preset == .grpc { return grpcBudget(fields) }
        for key in PolicyKeys.grpcBudget {
            guard let entry = fields.entries[key] else { continue }
            reader.report(
                .keyConflict, at: entry.key.location,
                "budget.\(key): applies only to preset grpc, found \(preset.map { "preset \($0.rawValue)" } ?? "a token-bucket budget")",
                suggestion: "write 'preset: grpc' for gRPC retry throttling, or use capacity and the retry costs")
        }
        var result: RetryBudgetConfiguration
        switch preset {
        case .awsStandard: result = .awsStandard
        case .awsStandard2026: result = .awsStandard2026
        case .grpc, .finagle, .envoy, .gatewayAPI, nil: result = RetryBudgetConfiguration()
        }
        result.location = fields.location
        var bucket = result.tokenBucket ?? TokenBucketBudget()
        if let node = fields["capacity"], let value = reader.integer(node, at: fields.path("capacity"), describing: PolicyBounds.budgetCapacity) {
            bucket.capacity = value
        }
        if let node = fields["retry_cost"], let value = reader.integer(node, at: fields.path("retry_cost"), describing: PolicyBounds.budgetAmount) {
            bucket.retryCost = value
            // Without a preset, throttling costs what any retry costs
            // unless stated (the format before throttling costs existed).
            if preset == nil { bucket.throttlingRetryCost = value }
        }
        if let node = fields["timeout_retry_cost"],
            let value = reader.integer(node, at: fields.path("timeout_retry_cost"), describing: PolicyBounds.budgetAmount)
        {
            bucket.timeoutRetryCost = value
        }
        if let node = fields["throttling_retry_cost"],
            let value = reader.integer(node, at: fields.path("throttling_retry_cost"), describing: PolicyBounds.budgetAmount)
        {
            bucket.throttlingRetryCost = value
        }
        if let node = fields["throttling_errors"],
            let items = reader.list(node, at: fields.path("throttling_errors"), what: "a list of error kinds")
        {
            var kinds: Set<SDKError.Kind> = []
            for item in items {
                if let kind = reader.errorKind(item, at: fields.path("throttling_errors"), known: known) { kinds.insert(kind) }
            }
            bucket.throttlingErrors = kinds
        }
        if let node = fields["success_refund"], let value = reader.integer(node, at: fields.path("success_refund"), describing: PolicyBounds.budgetAmount) {
            bucket.successRefund = value
        }
        result.rules = .tokenBucket(bucket)
        return result
    }

    /// A ratio budget: a ratio preset, or ratio keys without a preset;
    /// what is not stated is the preset's (Finagle's without one).
    private mutating func ratioBudget(_ fields: Fields, preset: BudgetPreset?) -> RetryBudgetConfiguration? {
        for key in PolicyKeys.tokenBucketBudget + PolicyKeys.grpcBudget {
            guard let entry = fields.entries[key] else { continue }
            reader.report(
                .keyConflict, at: entry.key.location,
                "budget.\(key): does not apply to a ratio budget (requests deposit, retries withdraw)",
                suggestion: "set retry_percent, min_retries_per_second and window, or choose preset aws-standard or grpc to use \(key)")
        }
        var ratio = preset?.ratio ?? .finagle
        var valid = true
        if let node = fields["retry_percent"] {
            if let percent = reader.number(node, at: fields.path("retry_percent"), in: PolicyBounds.ratioPercent) {
                // Exact: one decimal, as Envoy's and the Gateway API's
                // percentages are written.
                let scaled = Int((percent * 10).rounded())
                if Double(scaled) / 10 == percent {
                    ratio.permille = scaled
                } else {
                    valid = false
                    reader.expected("a percentage from 0 to 1000 with at most one decimal", for: fields.path("retry_percent"), found: node,
                                    rule: .invalidValue, suggestion: "write \(NumberText.number(Double(Int((percent * 10).rounded(.down))) / 10))")
                }
            } else {
                valid = false
            }
        }
        if let node = fields["min_retries_per_second"] {
            if let value = reader.integer(node, at: fields.path("min_retries_per_second"), describing: PolicyBounds.ratioMinRetriesPerSecond) {
                ratio.minRetriesPerSecond = value
            } else {
                valid = false
            }
        }
        if let node = fields["window"] {
            if let window = reader.duration(node, at: fields.path("window")) {
                if PolicyBounds.ratioWindow.contains(window) {
                    ratio.window = window
                } else {
                    valid = false
                    reader.expected("a duration from 1s to 60s (Finagle's ttl range)", for: fields.path("window"), found: node,
                                    rule: .outOfRange, suggestion: "write 10s, the window Finagle and the Gateway API use")
                }
            } else {
                valid = false
            }
        }
        guard valid else { return nil }
        return .ratio(ratio, preset: preset?.rawValue, location: fields.location)
    }

    /// `preset: grpc`: gRPC retry throttling, which has no defaults.
    private mutating func grpcBudget(_ fields: Fields) -> RetryBudgetConfiguration? {
        for key in PolicyKeys.tokenBucketBudget {
            guard let entry = fields.entries[key] else { continue }
            reader.report(
                .keyConflict, at: entry.key.location,
                "budget.\(key): does not apply to preset grpc (every failure costs one token, every success returns token_ratio)",
                suggestion: "set max_tokens and token_ratio, or choose preset aws-standard to use \(key)")
        }
        for key in PolicyKeys.grpcBudget where fields[key] == nil {
            reader.report(.missingKey, at: fields.location, "missing required key '\(key)' in 'budget' (gRPC throttling has no default)",
                          suggestion: "gRPC's retryThrottling states maxTokens and tokenRatio, for example max_tokens: 10, token_ratio: 0.1")
        }
        let maxTokens = fields["max_tokens"].flatMap { reader.integer($0, at: fields.path("max_tokens"), in: PolicyBounds.grpcMaxTokens) }
        var thousandths: Int?
        if let node = fields["token_ratio"], let ratio = reader.number(node, at: fields.path("token_ratio"), in: PolicyBounds.grpcTokenRatio) {
            // Exact: the nearest double to k/1000 is what three decimals
            // read as, and nothing else is.
            let scaled = Int((ratio * 1000).rounded())
            if scaled > 0, Double(scaled) / 1000 == ratio {
                thousandths = scaled
            } else {
                let rounded = Swift.max(Int((ratio * 1000).rounded(.down)), 1)
                reader.expected("a number above 0 with at most three decimals (gRPC's precision)", for: fields.path("token_ratio"), found: node,
                                rule: .invalidValue, suggestion: "write \(rounded / 1000).\(Self.threeDigits(rounded % 1000))")
            }
        }
        guard let maxTokens, let thousandths else { return nil }
        return .grpc(maxTokens: maxTokens, tokenRatioThousandths: thousandths, location: fields.location)
    }

    static func threeDigits(_ value: Int) -> String {
        var text = String(value)
        while text.count < 3 { text = "0" + text }
        return text
    }

    /// The `errors` section: declared kinds and their per-platform names.
    private mutating func errorNames(_ node: YAMLNode) -> (PlatformNames, [SDKError.Kind]) {
        guard case .mapping(let entries, _) = node else {
            reader.expected("a mapping from error kinds to platform names", for: "errors", found: node)
            return (PlatformNames(), [])
        }
        var names: [String: [SDKError.Kind: String]] = [:]
        var declared: [SDKError.Kind] = []
        for entry in entries {
            let kindText = entry.key.value
            guard reader.identifier(kindText, at: entry.key.location, keyPath: "errors", what: "an error kind") else { continue }
            let kind = SDKError.Kind(rawValue: kindText)
            declared.append(kind)
            let keyPath = "errors.\(kindText)"
            if case .scalar(let scalar) = entry.value, case .null = scalar.resolved { continue }
            guard case .mapping(let platforms, _) = entry.value else {
                reader.expected("a mapping from platforms to error names (or nothing)", for: keyPath, found: entry.value)
                continue
            }
            for platform in platforms {
                guard reader.identifier(platform.key.value, at: platform.key.location, keyPath: keyPath, what: "a platform name") else { continue }
                if let name = reader.string(platform.value, at: "\(keyPath).\(platform.key.value)", what: "an error name") {
                    if name.isEmpty {
                        reader.expected("a non-empty error name", for: "\(keyPath).\(platform.key.value)", found: platform.value, rule: .invalidValue)
                    } else {
                        names[platform.key.value, default: [:]][kind] = name
                    }
                }
            }
        }
        return (PlatformNames(names), declared)
    }

    /// `conditions`: the outcome classes code may report, each a
    /// snake_case name declared once.
    private mutating func conditions(_ node: YAMLNode) -> [AttemptCondition] {
        guard let items = reader.list(node, at: "conditions", what: "a list of condition names") else { return [] }
        var result: [AttemptCondition] = []
        for item in items {
            guard let text = reader.string(item, at: "conditions", what: "a condition name"),
                reader.identifier(text, at: item.location, keyPath: "conditions", what: "a condition name")
            else { continue }
            let condition = AttemptCondition(rawValue: text)
            if result.contains(condition) {
                reader.report(.invalidValue, at: item.location, "conditions: '\(text)' is declared twice",
                              suggestion: "remove the second '\(text)'")
                continue
            }
            result.append(condition)
        }
        return result
    }

    private mutating func rule(
        _ node: YAMLNode, at keyPath: String, known: Set<SDKError.Kind>, conditions declared: Set<AttemptCondition>
    ) -> Rule? {
        guard let fields = reader.fields(node, at: keyPath, allowed: PolicyKeys.rule, required: ["action"],
                                         what: "a rule mapping with 'action' and 'status', 'transport', 'condition' or 'grpc'") else { return nil }
        let before = reader.diagnostics.count + reader.suppressed
        let action = fields["action"].flatMap { reader.choice($0, at: fields.path("action"), of: Rule.Action.self) }
        var rule = Rule(action: action ?? .stop, location: fields.location)
        if let node = fields["status"] { rule.statuses = reader.statusPatterns(node, at: fields.path("status")) ?? [] }
        if let node = fields["transport"] { rule.transports = reader.transports(node, at: fields.path("transport")) ?? [] }
        if let node = fields["condition"] {
            rule.conditions = reader.conditions(node, at: fields.path("condition"), declared: declared) ?? []
        }
        if let node = fields["grpc"] { rule.grpc = reader.grpcStatuses(node, at: fields.path("grpc")) ?? [] }
        if let node = fields["methods"] { rule.methods = reader.methods(node, at: fields.path("methods"), nonEmpty: true) }
        if let node = fields["error"] { rule.error = reader.errorKind(node, at: fields.path("error"), known: known) }
        if let node = fields["honor_retry_after"] { rule.honorRetryAfter = reader.bool(node, at: fields.path("honor_retry_after")) }
        if let node = fields["refresh_credentials"], let value = reader.bool(node, at: fields.path("refresh_credentials")) {
            rule.refreshCredentials = value
        }
        if fields["status"] == nil && fields["transport"] == nil && fields["condition"] == nil && fields["grpc"] == nil {
            reader.report(.incompleteRule, at: fields.location, "\(keyPath): expected 'status', 'transport', 'condition' or 'grpc', found none",
                          suggestion: "a rule without conditions matches nothing; use 'default' for unmatched inputs")
        }
        if let action, action != .success, fields["error"] == nil {
            reader.report(.missingKey, at: fields.location, "missing required key 'error' in '\(keyPath)' (a \(action) rule reports an error kind)")
        }
        return reader.diagnostics.count + reader.suppressed == before ? rule : nil
    }

    private mutating func defaultRule(_ node: YAMLNode, known: Set<SDKError.Kind>) -> DefaultRule? {
        guard let fields = reader.fields(node, at: "default", allowed: PolicyKeys.defaultRule, required: PolicyKeys.defaultRule) else { return nil }
        let action = fields["action"].flatMap { reader.choice($0, at: fields.path("action"), of: Rule.Action.self) }
        let error = fields["error"].flatMap { reader.errorKind($0, at: fields.path("error"), known: known) }
        guard let action, let error else { return nil }
        return DefaultRule(error: error, action: action, location: fields.location)
    }
}
