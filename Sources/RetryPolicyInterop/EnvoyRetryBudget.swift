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
        clusterNamed(cluster, in: root, depth: 0).flatMap(budget(of:))
    }

    /// The `retry_budget` of a cluster's DEFAULT-priority thresholds (a
    /// threshold without `priority` is DEFAULT's), as Envoy applies it to
    /// a route's retries.
    static func budget(of cluster: YAMLNode) -> YAMLNode? {
        guard let breakers = ForeignReader.field(cluster, "circuit_breakers"),
            let thresholds = ForeignReader.field(breakers, "thresholds")
        else { return nil }
        for threshold in ForeignReader.items(thresholds) {
            let priority = ForeignReader.field(threshold, "priority")?.scalarText ?? "DEFAULT"
            guard priority == "DEFAULT" else { continue }
            if let budget = ForeignReader.field(threshold, "retry_budget") { return budget }
        }
        return nil
    }

    /// A cluster that holds a retry budget, found in a document without
    /// routes.
    struct Holder {
        var cluster: YAMLNode
        var budget: YAMLNode
        /// The cluster's `name`, or its place when it has none.
        var name: String
        var isNamed: Bool
    }

    /// The clusters of `root` with a DEFAULT-priority `retry_budget`, in
    /// document order: a Cluster resource, a list of them, a bootstrap's
    /// `static_resources.clusters`, a config_dump's clusters; at most
    /// ``searchDepth`` deep.
    static func holders(in root: YAMLNode) -> [Holder] {
        var found: [Holder] = []
        collect(root, depth: 0, into: &found)
        return found
    }

    private static func collect(_ node: YAMLNode, depth: Int, into found: inout [Holder]) {
        guard depth < searchDepth else { return }
        switch node {
        case .mapping(let entries, _):
            if ForeignReader.field(node, "circuit_breakers") != nil {
                if let budget = budget(of: node) {
                    let name = EnvoyRouteSearch.name(of: node)
                    found.append(Holder(cluster: node, budget: budget, name: name ?? "cluster at line \(node.location.line)", isNamed: name != nil))
                }
                return
            }
            for entry in entries { collect(entry.value, depth: depth + 1, into: &found) }
        case .sequence(let items, _):
            for item in items { collect(item, depth: depth + 1, into: &found) }
        case .scalar:
            break
        }
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

    /// How a configuration spells the budget: Envoy's cluster
    /// `retry_budget`, or Istio's DestinationRule `trafficPolicy.retryBudget`
    /// (which Istio writes into that same Envoy setting).
    struct Spelling: Sendable {
        /// The block's path, as messages name it.
        var block: String
        /// The proto names of the percentage, the floor and the interval.
        var percent: String
        var minimum: String
        var interval: String
        /// Where the percentage's number is, as messages name it.
        var percentValue: String
        /// Who owns the budget, for the comment: `Cluster web`.
        var owner: String
        /// The tool named in the warning.
        var tool: String
        /// The product whose limits an export names: `Envoy`, `Istio`.
        var product: String
        /// Whether the configuration spells its keys in lowerCamelCase
        /// (Istio's CRDs) rather than proto snake_case (Envoy's YAML).
        var camelCase: Bool
        /// Whether the percentage is a `type.v3.Percent` message
        /// (`{value: 20}`) rather than a plain number.
        var percentIsMessage: Bool

        static func envoy(cluster: String) -> Spelling {
            Spelling(block: "retry_budget", percent: "budget_percent", minimum: "min_retry_concurrency", interval: "budget_interval",
                     percentValue: "retry_budget.budget_percent.value", owner: "Cluster \(cluster)", tool: "Envoy",
                     product: "Envoy", camelCase: false, percentIsMessage: true)
        }

        static func istio(destinationRule: String) -> Spelling {
            Spelling(block: "trafficPolicy.retryBudget", percent: "percent", minimum: "min_retry_concurrency", interval: "budget_interval",
                     percentValue: "trafficPolicy.retryBudget.percent", owner: "DestinationRule \(destinationRule)",
                     tool: "Istio (through Envoy's retry_budget)", product: "Istio", camelCase: true, percentIsMessage: false)
        }

        /// A key as the configuration writes it.
        func written(_ protoName: String) -> String {
            camelCase ? ForeignReader.camelCase(protoName) : protoName
        }

        func shown(_ protoName: String) -> String {
            block == "retry_budget" ? "\(block).\(protoName)" : "\(block).\(ForeignReader.camelCase(protoName))"
        }
    }

    /// The budget block that carries `ratio` as `spelling` writes it: the
    /// percentage (at most 100, one decimal) and the floor of concurrent
    /// retries, `read`'s mapping the other way, so a budget read and
    /// written again keeps its numbers. A percentage above 100 is written
    /// as 100 with a warning.
    static func write(
        _ ratio: RatioRetryBudget, spelling: Spelling, behaviour: PolicyBehaviour
    ) -> (block: InteropValue, written: RatioRetryBudget, warning: InteropWarning?) {
        var written = ratio
        var warning: InteropWarning?
        if ratio.permille > 1000 {
            written.permille = 1000
            let path = spelling.block.split(separator: ".").last.map(String.init) ?? spelling.block
            warning = InteropWarning(
                feature: "budget.retry_percent", location: behaviour.location("budget.retry_percent", "budget"),
                message: "\(spelling.product)'s \(path).\(spelling.written(spelling.percent)) is at most 100; the policy's \(NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)) is exported as 100")
        }
        let percent = InteropValue.number(NumberText.decimal(Int64(written.permille), fractionDigits: 1))
        let block = InteropValue.object([
            .init(spelling.written(spelling.percent), spelling.percentIsMessage ? .object([.init("value", percent)]) : percent),
            .init(spelling.written(spelling.minimum), .int(written.minRetriesPerSecond)),
        ])
        return (block, written, warning)
    }

    /// Reads `budget` (a `retry_budget`) into `imported` as a ratio budget,
    /// with a warning for what the mapping loses.
    static func read(_ budget: YAMLNode, cluster: String, reader: inout ForeignReader, imported: inout ImportedPolicy) {
        read(budget, spelling: .envoy(cluster: cluster), reader: &reader, imported: &imported)
    }

    /// Reads a budget spelt as `spelling` says into `imported` as a ratio
    /// budget, with a warning for what the mapping loses.
    static func read(_ budget: YAMLNode, spelling: Spelling, reader: inout ForeignReader, imported: inout ImportedPolicy) {
        guard reader.mapping(budget, spelling.block) != nil else { return }
        var percent = defaultPercent
        if let node = ForeignReader.field(budget, spelling.percent) {
            let value = ForeignReader.field(node, "value") ?? node
            if let number = reader.number(value, spelling.percentValue) {
                guard number.isFinite, (0...100).contains(number) else {
                    reader.error(.invalidValue, at: value.location,
                        "\(spelling.shown(spelling.percent)): expected a percentage from 0 to 100, found \(NumberText.number(number))",
                        suggestion: "write a percentage such as 20")
                    return
                }
                percent = number
            }
        }
        var minimum = defaultMinRetryConcurrency
        if let node = ForeignReader.field(budget, spelling.minimum) {
            let value = ForeignReader.field(node, "value") ?? node
            if let number = reader.integer(value, spelling.shown(spelling.minimum), lenient: true) {
                guard PolicyBounds.ratioMinRetriesPerSecond.contains(number) else {
                    reader.error(.invalidValue, at: value.location,
                        "\(spelling.shown(spelling.minimum)): expected 0 to 1000000, found \(number)",
                        suggestion: "write a whole number of retries such as 3")
                    return
                }
                minimum = number
            }
        }
        // One decimal, the policy's precision.
        let permille = Int((percent * 10).rounded())
        let shownPercent = NumberText.decimal(Int64(permille), fractionDigits: 1)
        if Double(permille) / 10 != percent {
            imported.warn("budget.retry_percent", at: budget.location,
                "\(spelling.percent) \(NumberText.number(percent)) is rounded to one decimal: \(shownPercent)")
        }
        imported.budget = .ratio(
            RatioRetryBudget(permille: permille, minRetriesPerSecond: minimum, window: .seconds(1)))
        imported.comment("budget", "\(spelling.owner)'s \(spelling.block): \(shownPercent) % of active requests, at least \(minimum) retries at once, as a rate over 1s.")
        imported.warn("budget", at: budget.location,
            "\(spelling.tool) caps retries in flight (\(minimum) or \(shownPercent) % of active requests, whichever is more); the policy counts retries started over a 1s window, which matches only when attempts last about a second")
        if let node = ForeignReader.field(budget, spelling.interval), let text = node.scalarText {
            imported.warn("budget.window", at: node.location,
                "\(spelling.shown(spelling.interval)) \(DisplayText.escaped(String(text.prefix(40)))) counts the requests of that interval instead of those in flight, but the cap is still on retries in flight; not imported (the window stays 1s)")
        }
    }
}
