import RetryPolicyCore
import RetryPolicyYAML

extension InteropFormat {
    public static let envoy = InteropFormat(declaring: "envoy")
}

/// Envoy route configuration, in proto3 JSON or YAML, with field names in
/// snake_case or lowerCamelCase as Envoy's parser takes them: a
/// RouteConfiguration (or a list of them), a virtual host, a route, a
/// RouteAction, a bare RetryPolicy, a Listener whose HttpConnectionManager
/// holds an inline `route_config`, or an admin `config_dump` (also as
/// `istioctl proxy-config routes -o json` prints it); and, in a file
/// without routes, each Cluster whose circuit breakers hold a
/// `retry_budget`.
struct EnvoyFormat: InteropFormatHandler {
    var format: InteropFormat { .envoy }
    var candidateNoun: String { "route retry policy" }
    var title: String { "Envoy route configuration" }
    var importHelp: String { "an Envoy route configuration (a RouteConfiguration, virtual host, route, RouteAction, bare retry_policy, a Listener with an inline route_config, an admin config_dump, or a Cluster with a retry_budget; snake_case or camelCase)" }
    var selectionHelp: String { "an Envoy route or virtual host (a cluster in a file without routes)" }
    var exportHelp: String? { "the `timeout` and `retry_policy` fields of a route's RouteAction (YAML); with a ratio budget, a bootstrap's static_resources whose route sends to a cluster holding the retry_budget" }

    func recognizes(_ file: ForeignFile) -> Bool {
        guard case .success(let documents) = file.documents, documents.count == 1, let root = documents.first else { return false }
        let search = EnvoyRouteSearch(root)
        return !search.places.isEmpty || search.virtualHosts > 0 || !EnvoyRetryBudget.holders(in: root).isEmpty
    }

    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate] {
        let root = try file.document(of: format)
        let search = EnvoyRouteSearch(root)
        guard !search.places.isEmpty else {
            if search.virtualHosts == 0 && search.routes == 0 {
                let holders = EnvoyRetryBudget.holders(in: root)
                if !holders.isEmpty { return clusterCandidates(holders) }
            }
            if let other = search.otherRetryPolicies.first {
                throw InteropError(
                    .noRetrySettings, at: other,
                    "expected a retry_policy on a route or virtual host, found only \(search.otherRetryPolicies.count == 1 ? "one" : "\(search.otherRetryPolicies.count)") outside the routes (a service call's core.v3.RetryPolicy, such as ext_authz's), which does not retry the route's requests")
            }
            if search.listeners > 0 && search.virtualHosts == 0 {
                throw InteropError(
                    .noRetrySettings, at: root.location,
                    "expected a Listener whose HttpConnectionManager has an inline route_config, found \(plural(search.listeners, "listener"))"
                        + (search.routeDiscovery > 0 ? " that take their routes from RDS" : " without routes"),
                    suggestion: "import the RouteConfiguration that RDS serves (a config_dump holds it)")
            }
            if search.virtualHosts == 0 && search.routes == 0 {
                throw InteropError(
                    .notThisFormat, at: root.location,
                    "expected an Envoy route configuration (virtual_hosts, routes, retry_policy) or a bare RetryPolicy (retry_on, num_retries), found \(Self.found(root))")
            }
            throw InteropError(
                .noRetrySettings, at: root.location,
                "expected a retry_policy on a route or virtual host, found none: \(plural(search.virtualHosts, "virtual host")) and \(plural(search.routes, "route")), which Envoy does not retry")
        }
        if search.places.count == 1, let bare = search.places.first, bare.kind == .bare,
            ForeignReader.field(bare.retryPolicy, "retry_on") == nil
        {
            // A RetryPolicy without retry_on retries on no condition.
            throw InteropError(
                .noRetrySettings, at: root.location,
                "expected retry_on in this RetryPolicy, found none: without retry conditions Envoy makes no retries",
                suggestion: "add retry_on (such as 5xx or connect-failure,refused-stream) for Envoy to retry")
        }
        var used: Set<String> = []
        return search.places.map { place in
            let name = ImportCandidate.unique(place.name, among: &used)
            return ImportCandidate(
                name: name, aliases: place.aliases.filter { !used.contains($0) }, summary: summary(place),
                location: place.retryPolicy.location, node: place.retryPolicy, context: [place.holder])
        }
    }

    /// A file without routes whose clusters hold retry budgets: one
    /// candidate a cluster, by its name.
    func clusterCandidates(_ holders: [EnvoyRetryBudget.Holder]) -> [ImportCandidate] {
        var used: Set<String> = []
        return holders.map { holder in
            let budget = holder.budget
            var parts = ["cluster", "retry_budget"]
            if let percent = ForeignReader.field(budget, "budget_percent") {
                let value = ForeignReader.field(percent, "value") ?? percent
                if let text = value.scalarText { parts.append("budget_percent \(text)") }
            }
            if let minimum = ForeignReader.field(budget, "min_retry_concurrency")?.scalarText { parts.append("min_retry_concurrency \(minimum)") }
            return ImportCandidate(
                name: ImportCandidate.unique(holder.name, among: &used), summary: parts.joined(separator: ", "),
                location: holder.cluster.location, node: holder.cluster)
        }
    }

    func summary(_ place: EnvoyRetryPlace) -> String {
        let kind: String
        switch place.kind {
        case .route: kind = "route"
        case .virtualHost: kind = "virtual host"
        case .bare: kind = "RetryPolicy"
        }
        var parts = [kind]
        if let retryOn = ForeignReader.field(place.retryPolicy, "retry_on")?.scalarText { parts.append("retry_on \(retryOn)") }
        if let retries = ForeignReader.field(place.retryPolicy, "num_retries")?.scalarText { parts.append("num_retries \(retries)") }
        return parts.joined(separator: ", ")
    }

    /// The top-level keys of a document that is not a route configuration.
    static func found(_ root: YAMLNode) -> String {
        switch root {
        case .mapping(let entries, _):
            let keys = entries.prefix(6).map(\.key.value)
            let clusterKeys: Set<String> = ["circuit_breakers", "circuitBreakers", "thresholds", "retry_budget", "connect_timeout", "connectTimeout"]
            let cluster = keys.contains(where: clusterKeys.contains)
                ? " (a cluster's settings without a retry_budget in circuit_breakers.thresholds)" : ""
            return "a mapping of " + keys.joined(separator: ", ") + (entries.count > 6 ? ", ..." : "") + cluster
        case .sequence(let items, _):
            if let first = items.first, case .mapping = first { return "a list of \(items.count) (the first: \(found(first)))" }
            return root.kindDescription
        case .scalar: return root.kindDescription
        }
    }

    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy {
        try importCandidates([candidate], from: file)[0].get()
    }

    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        let places: [EnvoyRetryPlace]
        let document: YAMLNode
        do {
            document = try file.document(of: format)
            places = EnvoyRouteSearch(document).places
        } catch {
            return candidates.map { _ in .failure(error) }
        }
        if places.isEmpty {
            let holders = EnvoyRetryBudget.holders(in: document)
            let byLocation = Dictionary(holders.map { ($0.cluster.location, $0) }, uniquingKeysWith: { first, _ in first })
            return candidates.map { candidate in
                guard let holder = byLocation[candidate.location] else {
                    return .failure(InteropError(.selection, at: candidate.location, "expected a cluster with a retry_budget at this place, found none"))
                }
                let name = holders.count == 1 ? file.baseName : candidate.name
                return Result { () throws(InteropError) in try EnvoyImporter.importCluster(holder, path: file.path, name: name) }
            }
        }
        let byPlace = Dictionary(places.map { ($0.retryPolicy.location, $0) }, uniquingKeysWith: { first, _ in first })
        return candidates.map { candidate in
            guard let place = byPlace[candidate.location] else {
                return .failure(InteropError(.selection, at: candidate.location, "expected a retry_policy at this place, found none"))
            }
            let name = places.count == 1 ? file.baseName : candidate.name
            return Result { () throws(InteropError) in try EnvoyImporter.importPlace(place, path: file.path, name: name, document: document) }
        }
    }

    var canExport: Bool { true }

    func export(_ policy: Policy, file: String) -> ExportResult? {
        EnvoyExporter.export(policy, file: file)
    }
}
