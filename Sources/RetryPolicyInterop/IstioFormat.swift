import RetryPolicyCore
import RetryPolicyYAML

extension InteropFormat {
    public static let istio = InteropFormat(declaring: "istio")
}

/// Istio VirtualServices: one or several documents (`---`, as
/// `kubectl apply -f` takes them), documents of other kinds skipped, and
/// a bare HTTP route (`retries`, `timeout`), as `export` writes it. A
/// DestinationRule in the same file gives the routes to its host its
/// retry budget.
struct IstioFormat: InteropFormatHandler {
    var format: InteropFormat { .istio }
    var candidateNoun: String { "HTTP route" }
    var title: String { "Istio VirtualService" }
    var importHelp: String { "Istio VirtualServices (several documents separated by ---)" }
    var selectionHelp: String { "an Istio HTTP route or VirtualService" }
    var exportHelp: String? { "the `timeout` and `retries` fields of a VirtualService HTTP route, and a DestinationRule for a ratio budget (YAML)" }

    /// One HTTP route and the VirtualService around it.
    struct Route {
        var node: YAMLNode
        var name: String
        var aliases: [String]
        var title: String
        /// The DestinationRule, in the same file, whose retry budget
        /// applies to the route.
        var budget: IstioDestinationRule?
    }

    func recognizes(_ file: ForeignFile) -> Bool {
        guard case .success(let documents) = file.documents else { return false }
        return documents.contains { kind(of: $0) == "VirtualService" }
    }

    func kind(of document: YAMLNode) -> String? {
        ForeignReader.value(document, "kind")?.scalarText
    }

    /// Every HTTP route of every VirtualService, and the kinds passed over.
    func routes(_ file: ForeignFile) throws(InteropError) -> (routes: [Route], skipped: [String], services: Int) {
        let documents = try file.documents.get()
        var routes: [Route] = []
        var skipped: [String] = []
        var services = 0
        var reader = ForeignReader(file: file.path)
        let rules = documents.compactMap(IstioDestinationRule.read)
        for document in documents {
            guard case .mapping = document else {
                skipped.append(document.kindDescription)
                continue
            }
            let kind = kind(of: document)
            if kind == nil && ForeignReader.value(document, "spec") == nil
                && (ForeignReader.value(document, "retries") != nil || ForeignReader.value(document, "timeout") != nil)
            {
                routes.append(Route(
                    node: document, name: file.baseName, aliases: [], title: "A VirtualService HTTP route's retries and timeout.",
                    budget: IstioDestinationRule.matching([], in: rules)))
                continue
            }
            guard kind == "VirtualService" else {
                skipped.append(kind ?? "a document without kind")
                continue
            }
            services += 1
            let serviceName = ForeignReader.value(document, "metadata").flatMap { ForeignReader.value($0, "name") }?.scalarText
            let spec = ForeignReader.value(document, "spec") ?? document
            guard let http = ForeignReader.value(spec, "http") else { continue }
            guard let items = reader.list(http, "spec.http") else { continue }
            let label = serviceName ?? "VirtualService at line \(document.location.line)"
            for (index, item) in items.enumerated() {
                guard reader.mapping(item, "spec.http[\(index)]") != nil else { continue }
                let routeName = ForeignReader.value(item, "name")?.scalarText
                let name = routeName ?? (items.count == 1 ? (serviceName ?? file.baseName) : "\(serviceName ?? file.baseName)/http[\(index)]")
                var aliases: [String] = []
                if items.count == 1, let serviceName, serviceName != name { aliases.append(serviceName) }
                let title = "VirtualService \(label), HTTP route \(routeName ?? "http[\(index)]")."
                let budget = IstioDestinationRule.matching(IstioDestinationRule.destinationHosts(of: item), in: rules)
                routes.append(Route(node: item, name: name, aliases: aliases, title: title, budget: budget))
            }
        }
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return (routes, skipped, services)
    }

    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate] {
        let (routes, skipped, services) = try routes(file)
        guard !routes.isEmpty else {
            let documents = (try? file.documents.get()) ?? []
            let location = documents.first?.location ?? file.start
            if documents.isEmpty {
                throw InteropError(.notThisFormat, at: location, "expected an Istio VirtualService, found an empty file")
            }
            if services == 0 {
                throw InteropError(
                    .notThisFormat, at: location,
                    "expected a document of kind VirtualService (or a bare HTTP route's retries), found \(skipped.joined(separator: ", "))")
            }
            throw InteropError(
                .noRetrySettings, at: location,
                "expected a VirtualService with spec.http routes, found \(plural(services, "VirtualService")) without HTTP routes (tcp or tls routes are not retried)")
        }
        var used: Set<String> = []
        return routes.map { route in
            ImportCandidate(
                name: ImportCandidate.unique(route.name, among: &used), aliases: route.aliases, summary: summary(route.node), location: route.node.location, node: route.node)
        }
    }

    func summary(_ route: YAMLNode) -> String {
        guard let retries = ForeignReader.value(route, "retries") else { return "no retries (Istio's default 2)" }
        var parts: [String] = []
        if let attempts = ForeignReader.value(retries, "attempts")?.scalarText { parts.append("attempts \(attempts)") }
        if let retryOn = ForeignReader.value(retries, "retryOn")?.scalarText { parts.append("retryOn \(retryOn)") }
        return parts.isEmpty ? "retries" : parts.joined(separator: ", ")
    }

    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy {
        try importCandidates([candidate], from: file)[0].get()
    }

    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        let all: [Route]
        do {
            all = try routes(file).routes
        } catch {
            return candidates.map { _ in .failure(error) }
        }
        let byPlace = Dictionary(all.map { ($0.node.location, $0) }, uniquingKeysWith: { first, _ in first })
        return candidates.map { candidate in
            guard let route = byPlace[candidate.location] else {
                return .failure(InteropError(.selection, at: candidate.location, "expected an HTTP route at this place, found none"))
            }
            let name = all.count == 1 ? (route.aliases.first ?? route.name) : candidate.name
            return Result { () throws(InteropError) in
                try IstioImporter.importRoute(route.node, name: name, describedAs: route.title, budget: route.budget, path: file.path)
            }
        }
    }

    var canExport: Bool { true }

    func export(_ policy: Policy, file: String) -> ExportResult? {
        IstioExporter.export(policy, file: file)
    }
}
