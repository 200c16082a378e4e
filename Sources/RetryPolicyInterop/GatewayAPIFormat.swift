import RetryPolicyCore
import RetryPolicyYAML

extension InteropFormat {
    package static let gatewayAPI = InteropFormat(declaring: "gateway-api")
}

/// Kubernetes Gateway API BackendTrafficPolicies (GEP-3388, experimental:
/// `gateway.networking.x-k8s.io/v1alpha1`, kind `XBackendTrafficPolicy`,
/// `BackendTrafficPolicy` in the GEP's text): a backend's
/// `spec.retryConstraint`, its retry budget. The retries themselves
/// (attempts, codes, backoff) are an HTTPRoute rule's `retry`, another
/// object.
struct GatewayAPIFormat: InteropFormatHandler {
    var format: InteropFormat { .gatewayAPI }
    var candidateNoun: String { "BackendTrafficPolicy" }
    var title: String { "Gateway API BackendTrafficPolicy" }
    var importHelp: String { "Gateway API BackendTrafficPolicies (GEP-3388 retryConstraint; several documents separated by ---)" }
    var selectionHelp: String { "a BackendTrafficPolicy's metadata.name" }
    var exportHelp: String? { "an XBackendTrafficPolicy whose retryConstraint is the policy's ratio budget (YAML)" }

    static let kinds: Set<String> = ["XBackendTrafficPolicy", "BackendTrafficPolicy"]
    static let apiVersion = "gateway.networking.x-k8s.io/v1alpha1"

    func recognizes(_ file: ForeignFile) -> Bool {
        guard case .success(let documents) = file.documents else { return false }
        return documents.contains { Self.isPolicy($0) }
    }

    static func isPolicy(_ document: YAMLNode) -> Bool {
        ForeignReader.value(document, "kind")?.scalarText.map(kinds.contains) ?? false
    }

    /// Every BackendTrafficPolicy of the file, with its name.
    func policies(_ file: ForeignFile) throws(InteropError) -> [(name: String, node: YAMLNode)] {
        let documents = try file.documents.get()
        var found: [(name: String, node: YAMLNode)] = []
        for document in documents where Self.isPolicy(document) {
            let name = ForeignReader.value(document, "metadata").flatMap { ForeignReader.value($0, "name") }?.scalarText
            found.append((name ?? "\(file.baseName)/line-\(document.location.line)", document))
        }
        return found
    }

    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate] {
        let found = try policies(file)
        guard !found.isEmpty else {
            let documents = (try? file.documents.get()) ?? []
            let kinds = documents.map { ForeignReader.value($0, "kind")?.scalarText ?? $0.kindDescription }
            throw InteropError(
                .notThisFormat, at: documents.first?.location ?? file.start,
                "expected a document of kind XBackendTrafficPolicy or BackendTrafficPolicy, found \(kinds.isEmpty ? "an empty file" : kinds.prefix(10).joined(separator: ", "))")
        }
        var used: Set<String> = []
        return found.map { policy in
            let constraint = ForeignReader.value(policy.node, "spec").flatMap { ForeignReader.value($0, "retryConstraint") }
            return ImportCandidate(
                name: ImportCandidate.unique(policy.name, among: &used), summary: constraint == nil ? "no retryConstraint" : "retryConstraint",
                location: policy.node.location, node: policy.node)
        }
    }

    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy {
        try importCandidates([candidate], from: file)[0].get()
    }

    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        let found: [(name: String, node: YAMLNode)]
        do {
            found = try policies(file)
        } catch {
            return candidates.map { _ in .failure(error) }
        }
        let others = ((try? file.documents.get()) ?? []).filter { !Self.isPolicy($0) }
        let byPlace = Dictionary(found.map { ($0.node.location, $0.node) }, uniquingKeysWith: { first, _ in first })
        return candidates.map { candidate in
            guard let node = byPlace[candidate.location] else {
                return .failure(InteropError(.selection, at: candidate.location, "expected a BackendTrafficPolicy at this place, found none"))
            }
            return Result { () throws(InteropError) in
                try GatewayAPIRetryConstraint.importPolicy(node, name: candidate.name, others: others, path: file.path)
            }
        }
    }

    var canExport: Bool { true }

    func export(_ policy: Policy, file: String) -> ExportResult? {
        GatewayAPIRetryConstraint.export(policy, file: file)
    }
}
