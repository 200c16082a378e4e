import RetryPolicyCore
import RetryPolicyYAML

/// Where Envoy applies one `retry_policy`.
struct EnvoyRetryPlace {
    enum Kind { case route, virtualHost, bare }
    var kind: Kind
    /// The RetryPolicy message.
    var retryPolicy: YAMLNode
    /// The RouteAction (for a route) or VirtualHost that holds it.
    var holder: YAMLNode
    /// The route's or virtual host's name, or a made-up one.
    var name: String
    var aliases: [String] = []
    /// Whether ``name`` is written in the file (not made up).
    var isNamed = true
}

/// Finds the retry policies of a document where Envoy applies them: a
/// virtual host's (an item of `virtual_hosts`), a route's RouteAction
/// (`routes[i].route`), or the document itself when it is one of those or
/// a bare RetryPolicy. Retry policies elsewhere (an ext_authz service's
/// `core.v3.RetryPolicy`, say) are not route retries and are passed over.
struct EnvoyRouteSearch {
    private(set) var places: [EnvoyRetryPlace] = []
    private(set) var virtualHosts = 0
    private(set) var routes = 0
    /// Listeners, and HttpConnectionManagers that take their routes from
    /// RDS instead of an inline route_config.
    private(set) var listeners = 0
    private(set) var routeDiscovery = 0
    /// Where retry policies that are not a route's or virtual host's are
    /// (an ext_authz or other service call's core.v3.RetryPolicy).
    private(set) var otherRetryPolicies: [SourceLocation] = []
    private static let maxDepth = 64

    init(_ root: YAMLNode) {
        if case .mapping = root {
            if ForeignReader.field(root, "retry_policy") == nil, Self.isBareRetryPolicy(root) {
                places.append(EnvoyRetryPlace(kind: .bare, retryPolicy: root, holder: root, name: "retry_policy", isNamed: false))
                return
            }
            if ForeignReader.field(root, "domains") != nil || ForeignReader.field(root, "routes") != nil {
                visitHost(root, index: 0)
                return
            }
            if let retryPolicy = ForeignReader.field(root, "retry_policy") {
                places.append(EnvoyRetryPlace(
                    kind: .route, retryPolicy: retryPolicy, holder: root, name: Self.name(of: root) ?? "route", isNamed: Self.name(of: root) != nil))
            } else if let action = ForeignReader.field(root, "route"), let retryPolicy = ForeignReader.field(action, "retry_policy") {
                places.append(EnvoyRetryPlace(
                    kind: .route, retryPolicy: retryPolicy, holder: action, name: Self.name(of: root) ?? "route", isNamed: Self.name(of: root) != nil))
            }
        }
        walk(root, depth: 0)
    }

    /// A document that is a config.route.v3.RetryPolicy itself: it sets
    /// `retry_on` or `num_retries`, or every key is a RetryPolicy field
    /// (Envoy's own examples show one with only `retry_host_predicate`
    /// and `host_selection_retry_max_attempts`, say).
    static func isBareRetryPolicy(_ node: YAMLNode) -> Bool {
        if ForeignReader.field(node, "retry_on") != nil || ForeignReader.field(node, "num_retries") != nil { return true }
        let keys = ForeignReader.protoKeys(node)
        return !keys.isEmpty && keys.allSatisfy { EnvoyImporter.retryPolicyFields.contains($0.name) }
    }

    static func name(of node: YAMLNode) -> String? {
        guard let text = ForeignReader.value(node, "name")?.scalarText, !text.isEmpty else { return nil }
        return text
    }

    private mutating func walk(_ node: YAMLNode, depth: Int) {
        guard depth < Self.maxDepth else { return }
        if ForeignReader.field(node, "filter_chains") != nil || ForeignReader.field(node, "default_filter_chain") != nil { listeners += 1 }
        for (key, value) in ForeignReader.entries(node) {
            switch key.value {
            case "virtual_hosts", "virtualHosts":
                for (index, host) in ForeignReader.items(value).enumerated() { visitHost(host, index: index) }
            case "retry_policy", "retryPolicy":
                if !places.contains(where: { $0.retryPolicy.location == value.location }) { otherRetryPolicies.append(key.location) }
                walk(value, depth: depth + 1)
            case "rds":
                routeDiscovery += 1
                walk(value, depth: depth + 1)
            default:
                walk(value, depth: depth + 1)
            }
        }
        for item in ForeignReader.items(node) { walk(item, depth: depth + 1) }
    }

    private mutating func visitHost(_ host: YAMLNode, index: Int) {
        guard case .mapping = host else { return }
        virtualHosts += 1
        let hostName = Self.name(of: host) ?? "virtual_hosts[\(index)]"
        var routePlaces: [EnvoyRetryPlace] = []
        for (position, route) in ForeignReader.items(ForeignReader.field(host, "routes") ?? .sequence([], host.location)).enumerated() {
            routes += 1
            guard let action = ForeignReader.field(route, "route"), let retryPolicy = ForeignReader.field(action, "retry_policy") else { continue }
            let name = Self.name(of: route) ?? "\(hostName)/routes[\(position)]"
            routePlaces.append(EnvoyRetryPlace(kind: .route, retryPolicy: retryPolicy, holder: action, name: name))
        }
        if let retryPolicy = ForeignReader.field(host, "retry_policy") {
            places.append(EnvoyRetryPlace(kind: .virtualHost, retryPolicy: retryPolicy, holder: host, name: hostName))
        } else if routePlaces.count == 1 {
            // The host's only retrying route also answers to the host's name.
            routePlaces[0].aliases.append(hostName)
        }
        places += routePlaces
    }
}
