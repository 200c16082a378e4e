import RetryPolicyCore
import RetryPolicyYAML

/// GEP-3388's `retryConstraint` to a ratio budget and back:
/// `budget.percent` is `retry_percent`, `budget.interval` the window, and
/// `minRetryRate` (`count` per `interval`) the retries a second always
/// allowed. Gateway API counts requests over the interval, as the policy
/// does, so the numbers carry over; what else a policy says is an
/// HTTPRoute rule's `retry`, another object.
enum GatewayAPIRetryConstraint {
    /// GEP-3388's defaults.
    static let defaultPercent = 20
    static let defaultInterval: Duration = .seconds(10)
    static let defaultMinimumCount = 10
    static let defaultMinimumInterval: Duration = .seconds(1)

    static let constraintFields = ["budget", "minRetryRate"]
    static let budgetFields = ["percent", "interval"]
    static let rateFields = ["count", "interval"]

    static func importPolicy(_ document: YAMLNode, name: String, others: [YAMLNode], path: String) throws(InteropError) -> ImportedPolicy {
        var reader = ForeignReader(file: path)
        var imported = ImportedPolicy(name: name, source: path, format: .gatewayAPI, attempts: 1, backoff: .immediate)
        imported.comment("", "Gateway API BackendTrafficPolicy \(name)'s retryConstraint.")
        imported.comment("attempts", "A BackendTrafficPolicy holds the retry budget only: attempts, statuses and backoff are an HTTPRoute rule's retry.")
        guard let spec = ForeignReader.value(document, "spec"), reader.mapping(spec, "spec") != nil else {
            throw InteropError(.noRetrySettings, at: document.location, "expected spec.retryConstraint, found no spec",
                               suggestion: "add spec.retryConstraint: {budget: {percent: 20, interval: 10s}}")
        }
        guard let constraint = ForeignReader.value(spec, "retryConstraint") else {
            throw InteropError(.noRetrySettings, at: spec.location, "expected spec.retryConstraint, found \(keys(spec))",
                               suggestion: "add retryConstraint: {budget: {percent: 20, interval: 10s}}")
        }
        for (key, _) in ForeignReader.entries(spec) where key.value != "retryConstraint" {
            imported.warn("budget", at: key.location, "spec.\(DisplayText.escaped(String(key.value.prefix(60)))) is not a retry setting; not imported")
        }
        for other in others {
            let kind = ForeignReader.value(other, "kind")?.scalarText.map { DisplayText.escaped(String($0.prefix(60))) } ?? other.kindDescription
            let hint = kind == "HTTPRoute" ? " (an HTTPRoute rule's retry is another object; its attempts and codes are not read)" : ""
            imported.warn("budget", at: other.location, "\(kind) is not a BackendTrafficPolicy; not imported\(hint)")
        }
        var percent = defaultPercent
        var window = defaultInterval
        var windowAt = constraint.location
        var count = defaultMinimumCount
        var rateInterval = defaultMinimumInterval
        var rateAt = constraint.location
        if reader.mapping(constraint, "spec.retryConstraint") != nil {
            refuseUnknown(constraint, constraintFields, "spec.retryConstraint", reader: &reader)
            if let budget = ForeignReader.value(constraint, "budget"), reader.mapping(budget, "retryConstraint.budget") != nil {
                refuseUnknown(budget, budgetFields, "retryConstraint.budget", reader: &reader)
                if let value = ForeignReader.value(budget, "percent"), let number = reader.integer(value, "retryConstraint.budget.percent") {
                    if (0...100).contains(number) { percent = number } else {
                        reader.error(.invalidValue, at: value.location, "retryConstraint.budget.percent: expected a whole percentage from 0 to 100, found \(number)",
                                     suggestion: "write a percentage such as 20")
                    }
                }
                if let value = ForeignReader.value(budget, "interval"), let duration = duration(value, "retryConstraint.budget.interval", reader: &reader) {
                    window = duration
                    windowAt = value.location
                }
            }
            if let rate = ForeignReader.value(constraint, "minRetryRate"), reader.mapping(rate, "retryConstraint.minRetryRate") != nil {
                refuseUnknown(rate, rateFields, "retryConstraint.minRetryRate", reader: &reader)
                if let value = ForeignReader.value(rate, "count"), let number = reader.integer(value, "retryConstraint.minRetryRate.count") {
                    if (0...1_000_000_000).contains(number) { count = number } else {
                        reader.error(.invalidValue, at: value.location, "retryConstraint.minRetryRate.count: expected 0 to 1000000000, found \(number)",
                                     suggestion: "write a whole number of retries such as 10")
                    }
                }
                if let value = ForeignReader.value(rate, "interval"), let duration = duration(value, "retryConstraint.minRetryRate.interval", reader: &reader) {
                    rateInterval = duration
                    rateAt = value.location
                }
            }
        }
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }

        let bounds = PolicyBounds.ratioWindow
        if window < bounds.lowerBound || window > bounds.upperBound {
            let clamped = min(max(window, bounds.lowerBound), bounds.upperBound)
            imported.warn("budget.window", at: windowAt,
                "budget.interval \(window.formattedForHumans) is outside the policy's 1s-60s window; imported as \(clamped.formattedForHumans)")
            window = clamped
        }
        // count per interval, as retries a second.
        let seconds = Double(rateInterval.nanosecondsSaturated) / 1e9
        let exact = Double(count) / seconds
        var perSecond = Int(min(exact.rounded(), Double(PolicyBounds.ratioMinRetriesPerSecond.upperBound)))
        perSecond = max(perSecond, PolicyBounds.ratioMinRetriesPerSecond.lowerBound)
        if Double(perSecond) != exact {
            imported.warn("budget.min_retries_per_second", at: rateAt,
                "minRetryRate \(count) per \(rateInterval.formattedForHumans) is \(NumberText.number(exact)) a second; the policy counts whole retries a second: \(perSecond)")
        }
        imported.budget = .ratio(RatioRetryBudget(permille: percent * 10, minRetriesPerSecond: perSecond, window: window))
        imported.comment("budget", "retryConstraint: \(percent) % of the requests of the last \(window.formattedForHumans), at least \(count) retries per \(rateInterval.formattedForHumans).")
        return imported
    }

    static func keys(_ node: YAMLNode) -> String {
        let names = ForeignReader.entries(node).prefix(10).map { DisplayText.escaped(String($0.key.value.prefix(60))) }
        return names.isEmpty ? "an empty spec" : names.joined(separator: ", ")
    }

    static func refuseUnknown(_ node: YAMLNode, _ fields: [String], _ what: String, reader: inout ForeignReader) {
        for (key, _) in ForeignReader.entries(node) where !fields.contains(key.value) {
            reader.error(.invalidValue, at: key.location,
                "\(what): expected \(fields.joined(separator: " or ")), found \(DisplayText.escaped(String(key.value.prefix(60))))",
                suggestion: "the Gateway API's validation refuses other fields")
        }
    }

    /// A Gateway API Duration (GEP-2257: `10s`, `500ms`, `1h`).
    static func duration(_ node: YAMLNode, _ what: String, reader: inout ForeignReader) -> Duration? {
        guard let text = reader.string(node, what) else { return nil }
        if let duration = ForeignDuration.parseGo(text), duration > .zero { return duration }
        reader.error(.invalidValue, at: node.location,
            "\(what): expected a positive duration such as 10s or 500ms, found \"\(DisplayText.escaped(String(text.prefix(40))))\"",
            suggestion: "write a whole number with h, m, s or ms")
        return nil
    }

    /// A Gateway API Duration for `duration`: whole seconds, else whole
    /// milliseconds (GEP-2257 has no fractions).
    static func durationText(_ duration: Duration) -> String {
        let nanoseconds = duration.nanosecondsSaturated
        if nanoseconds % 1_000_000_000 == 0 { return "\(nanoseconds / 1_000_000_000)s" }
        return "\(max(nanoseconds / 1_000_000, 1))ms"
    }

    static func export(_ policy: Policy, file: String) -> ExportResult {
        let behaviour = PolicyBehaviour(policy: policy, file: file)
        var warnings = [InteropWarning(
            feature: "rules", location: behaviour.location("rules", "attempts"),
            message: "a BackendTrafficPolicy holds the retry budget only; attempts \(policy.attempts), the rules, backoff and timeouts are an HTTPRoute rule's retry (another object): not exported")]
        var spec: [InteropValue.Field] = [
            .init("targetRefs", .array([.object([
                .init("group", .string("")), .init("kind", .string("Service")), .init("name", .string(policy.name)),
            ])])),
        ]
        warnings.append(InteropWarning(
            feature: "budget", location: behaviour.location("name"),
            message: "targetRefs names the Service \(DisplayText.escaped(policy.name)) (the policy's name): set it to the backend the budget protects"))
        if let ratio = policy.budget?.ratio {
            var percent = (ratio.permille + 5) / 10
            if percent > 100 {
                percent = 100
                warnings.append(InteropWarning(
                    feature: "budget.retry_percent", location: behaviour.location("budget.retry_percent", "budget"),
                    message: "budget.percent is at most 100; the policy's \(NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)) is exported as 100"))
            } else if ratio.permille % 10 != 0 {
                warnings.append(InteropWarning(
                    feature: "budget.retry_percent", location: behaviour.location("budget.retry_percent", "budget"),
                    message: "budget.percent is a whole number; the policy's \(NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)) is exported as \(percent)"))
            }
            spec.append(.init("retryConstraint", .object([
                .init("budget", .object([.init("percent", .int(percent)), .init("interval", .string(durationText(ratio.window)))])),
                .init("minRetryRate", .object([.init("count", .int(ratio.minRetriesPerSecond)), .init("interval", .string("1s"))])),
            ])))
        } else {
            warnings.append(InteropWarning(
                feature: "budget", location: behaviour.location("budget", "attempts"),
                message: policy.budget == nil
                    ? "the policy has no budget; the BackendTrafficPolicy is written without a retryConstraint"
                    : "Gateway API's retryConstraint is a ratio budget; the policy's token-bucket budget is not exported"))
        }
        let document: InteropValue = .object([
            .init("apiVersion", .string(GatewayAPIFormat.apiVersion)),
            .init("kind", .string("XBackendTrafficPolicy")),
            .init("metadata", .object([.init("name", .string(policy.name))])),
            .init("spec", .object(spec)),
        ])
        return ExportResult(format: .gatewayAPI, document: document, warnings: warnings)
    }
}
