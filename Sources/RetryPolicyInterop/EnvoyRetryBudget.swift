import RetryPolicyCore
import RetryPolicyYAML

/// Envoy's retry budget, a cluster setting
/// (`circuit_breakers.thresholds[].retry_budget`, config.cluster.v3): read
/// for a route when the same document holds the cluster the route sends
/// to, as a bootstrap's `static_resources` does.
///
/// Envoy caps the retries in flight at
/// `max(min_retry_concurrency, budget_percent × active requests)`; the
/// policy's ratio budget counts retries started over a window. The import
/// maps the cap to a rate over one second (the `envoy` preset's mapping)
/// and says so.
enum EnvoyRetryBudget {
    /// Envoy's defaults for a `retry_budget` that leaves a field out.
    static let defaultPercent = 20.0
    static let defaultMinRetryConcurrency = 3

    /// The deepest a document is searched for clusters.
    static let searchDepth = 12

    /// The `retry_budget` of the DEFAULT-priority thresholds of the
    /// cluster named `cluster` in `root`, if the document holds one.
    static func find(cluster: String, in root: YAMLNode) -> YAMLNode? {
        guard let holder = clusterNamed(cluster, in: root, depth: 0),
            let breakers = ForeignReader.field(holder, "circuit_breakers"),
            let thresholds = ForeignReader.field(breakers, "thresholds")
        else { return nil }
        for threshold in ForeignReader.items(thresholds) {
            let priority = ForeignReader.field(threshold, "priority")?.scalarText ?? "DEFAULT"
            guard priority == "DEFAULT" else { continue }
            if let budget = ForeignReader.field(threshold, "retry_budget") { return budget }
        }
        return nil
    }

    private static func clusterNamed(_ name: String, in node: YAMLNode, depth: Int) -> YAMLNode? {
        guard depth < searchDepth else { return nil }
        switch node {
        case .mapping(let entries, _):
            if ForeignReader.field(node, "name")?.scalarText == name, ForeignReader.field(node, "circuit_breakers") != nil {
                return node
            }
            for entry in entries {
                if let found = clusterNamed(name, in: entry.value, depth: depth + 1) { return found }
            }
        case .sequence(let items, _):
            for item in items {
                if let found = clusterNamed(name, in: item, depth: depth + 1) { return found }
            }
        case .scalar:
            break
        }
        return nil
    }

    /// Reads `budget` (a `retry_budget`) into `imported` as a ratio budget,
    /// with a warning for what the mapping loses.
    static func read(_ budget: YAMLNode, cluster: String, reader: inout ForeignReader, imported: inout ImportedPolicy) {
        guard reader.mapping(budget, "retry_budget") != nil else { return }
        var percent = defaultPercent
        if let node = ForeignReader.field(budget, "budget_percent") {
            let value = ForeignReader.field(node, "value") ?? node
            if let number = reader.number(value, "retry_budget.budget_percent.value") {
                guard number.isFinite, (0...100).contains(number) else {
                    reader.error(.invalidValue, value, "retry_budget.budget_percent: expected a percentage from 0 to 100, found \(NumberText.number(number))")
                    return
                }
                percent = number
            }
        }
        var minimum = defaultMinRetryConcurrency
        if let node = ForeignReader.field(budget, "min_retry_concurrency") {
            let value = ForeignReader.field(node, "value") ?? node
            if let number = reader.integer(value, "retry_budget.min_retry_concurrency", lenient: true) {
                guard PolicyBounds.ratioMinRetriesPerSecond.contains(number) else {
                    reader.error(.invalidValue, value, "retry_budget.min_retry_concurrency: expected 0 to 1000000, found \(number)")
                    return
                }
                minimum = number
            }
        }
        // One decimal, the policy's precision.
        let permille = Int((percent * 10).rounded())
        if Double(permille) / 10 != percent {
            imported.warn("budget.retry_percent", at: budget.location,
                "budget_percent \(NumberText.number(percent)) is rounded to one decimal: \(NumberText.decimal(Int64(permille), fractionDigits: 1))")
        }
        imported.budget = .ratio(
            RatioRetryBudget(permille: permille, minRetriesPerSecond: minimum, window: .seconds(1)))
        imported.comment("budget", "Cluster \(cluster)'s retry_budget: \(NumberText.decimal(Int64(permille), fractionDigits: 1)) % of active requests, at least \(minimum) retries at once, as a rate over 1s.")
        imported.warn("budget", at: budget.location,
            "Envoy caps retries in flight (\(minimum) or \(NumberText.decimal(Int64(permille), fractionDigits: 1)) % of active requests, whichever is more); the policy counts retries started over a 1s window, which matches only when attempts last about a second")
    }
}
