import RetryPolicyCore
import RetryPolicyYAML

/// An Istio DestinationRule's retry budget (`spec.trafficPolicy.retryBudget`,
/// networking.istio.io): the cluster setting Istio writes into Envoy's
/// `retry_budget`, so a VirtualService's route and the budget of the host
/// it sends to are two documents of one file.
struct IstioDestinationRule: Sendable {
    var name: String
    var host: String?
    var budget: YAMLNode
    /// Subsets whose own trafficPolicy carries a retry budget: not read.
    var subsetBudgets: [(name: String, location: SourceLocation)]

    static let kind = "DestinationRule"
    static let apiVersion = "networking.istio.io/v1"

    /// The DestinationRule of `document` if it has a retry budget.
    static func read(_ document: YAMLNode) -> IstioDestinationRule? {
        guard ForeignReader.value(document, "kind")?.scalarText == kind,
            let spec = ForeignReader.value(document, "spec"),
            let policy = ForeignReader.value(spec, "trafficPolicy"),
            let budget = ForeignReader.value(policy, "retryBudget")
        else { return nil }
        let name = ForeignReader.value(document, "metadata").flatMap { ForeignReader.value($0, "name") }?.scalarText
        var subsets: [(name: String, location: SourceLocation)] = []
        for subset in ForeignReader.value(spec, "subsets").map(ForeignReader.items) ?? [] {
            if let inner = ForeignReader.value(subset, "trafficPolicy").flatMap({ ForeignReader.value($0, "retryBudget") }) {
                subsets.append((ForeignReader.value(subset, "name")?.scalarText ?? "subset", inner.location))
            }
        }
        return IstioDestinationRule(
            name: name ?? "at line \(document.location.line)", host: ForeignReader.value(spec, "host")?.scalarText,
            budget: budget, subsetBudgets: subsets)
    }

    /// The hosts an HTTP route sends to (`route[].destination.host`).
    static func destinationHosts(of route: YAMLNode) -> [String] {
        guard let destinations = ForeignReader.value(route, "route") else { return [] }
        return ForeignReader.items(destinations).compactMap { item in
            ForeignReader.value(item, "destination").flatMap { ForeignReader.value($0, "host") }?.scalarText
        }
    }

    /// The rule whose host a route sends to; a route that names no host
    /// (a bare route, as `export` writes it) takes the file's only rule.
    /// Istio resolves a short name (`reviews`) in the rule's namespace, so
    /// hosts match on their first label when either is short.
    static func matching(_ hosts: [String], in rules: [IstioDestinationRule]) -> IstioDestinationRule? {
        if hosts.isEmpty { return rules.count == 1 ? rules[0] : nil }
        return rules.first { rule in
            guard let host = rule.host else { return false }
            return hosts.contains { sameService($0, host) }
        }
    }

    static func sameService(_ lhs: String, _ rhs: String) -> Bool {
        if lhs == rhs { return true }
        guard !lhs.contains(".") || !rhs.contains(".") else { return false }
        return lhs.split(separator: ".").first == rhs.split(separator: ".").first
    }

    /// Reads the rule's budget into `imported`, with the Envoy mapping's
    /// warning, and a warning for each subset budget left out.
    func apply(reader: inout ForeignReader, imported: inout ImportedPolicy) {
        EnvoyRetryBudget.read(budget, spelling: .istio(destinationRule: name), reader: &reader, imported: &imported)
        for subset in subsetBudgets {
            imported.warn("budget", at: subset.location,
                "subset \(DisplayText.escaped(subset.name))'s own trafficPolicy.retryBudget applies to routes to that subset only; not imported (the rule's budget is)")
        }
    }

    /// The DestinationRule that carries `retryBudget` (as
    /// `EnvoyRetryBudget.write` makes it) for the service `name`.
    static func export(retryBudget: InteropValue, name: String) -> InteropValue {
        .object([
            .init("apiVersion", .string(apiVersion)),
            .init("kind", .string(kind)),
            .init("metadata", .object([.init("name", .string(name))])),
            .init("spec", .object([
                .init("host", .string(name)),
                .init("trafficPolicy", .object([.init("retryBudget", retryBudget)])),
            ])),
        ])
    }
}
