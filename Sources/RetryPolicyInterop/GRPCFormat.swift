import RetryPolicyCore
import RetryPolicyYAML

extension InteropFormat {
    public static let grpc = InteropFormat(declaring: "grpc")
}

/// gRPC service configs (gRFC A6 retries and hedging, retryThrottling), as
/// JSON or the DNS TXT record form.
struct GRPCFormat: InteropFormatHandler {
    var format: InteropFormat { .grpc }
    var candidateNoun: String { "method config" }
    var title: String { "gRPC service config" }
    var importHelp: String { "a gRPC service config (JSON, or the DNS TXT record form)" }
    var selectionHelp: String { "a gRPC SERVICE or SERVICE/METHOD" }
    var exportHelp: String? { "a gRPC service config (JSON) with one methodConfig for every method (`\"name\": [{}]`) holding `retryPolicy` and the deadline, and `retryThrottling` from the budget" }

    func recognizes(_ file: ForeignFile) -> Bool {
        guard case .success(let documents) = file.documents, documents.count == 1, let root = documents.first else { return false }
        var reader = ForeignReader(file: file.path)
        let config = GRPCServiceConfig.dnsChoice(root, reader: &reader)?.serviceConfig ?? root
        return ForeignReader.value(config, "methodConfig") != nil || ForeignReader.value(config, "retryThrottling") != nil
    }

    /// The validated config; every problem gRPC would reject it for.
    func read(_ file: ForeignFile) throws(InteropError) -> GRPCServiceConfig {
        let root = try file.document(of: format)
        var reader = ForeignReader(file: file.path)
        let config = GRPCServiceConfig.read(root, reader: &reader)
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return config
    }

    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate] {
        let config = try read(file)
        let named = config.methodConfigs.filter { !$0.names.isEmpty }
        guard named.contains(where: { $0.retryPolicy != nil || $0.hedgingPolicy != nil }) else {
            let root = try file.document(of: format)
            throw InteropError(
                .noRetrySettings, at: root.location,
                "expected a retryPolicy or hedgingPolicy in a methodConfig, found none: gRPC makes one attempt for every method; the file has \(found(config))")
        }
        return named.map { methodConfig in
            let names = methodConfig.names.map(\.text)
            return ImportCandidate(
                name: names[0], aliases: Array(names.dropFirst()), summary: summary(methodConfig),
                location: methodConfig.node.location, node: methodConfig.node)
        }
    }

    /// What a file without retry settings holds, for the message.
    func found(_ config: GRPCServiceConfig) -> String {
        var parts: [String] = []
        let count = config.methodConfigs.count
        parts.append(plural(count, "methodConfig"))
        let timeouts = config.methodConfigs.filter { $0.timeout != nil }.count
        if timeouts > 0 { parts.append("\(timeouts) with a timeout") }
        let unnamed = config.methodConfigs.filter(\.names.isEmpty).count
        if unnamed > 0 { parts.append("\(unnamed) naming no method (gRPC ignores those)") }
        if config.throttling != nil { parts.append("retryThrottling, which throttles retries no methodConfig makes") }
        return parts.joined(separator: ", ")
    }

    func summary(_ methodConfig: GRPCServiceConfig.MethodConfig) -> String {
        var parts: [String] = []
        if let retry = methodConfig.retryPolicy {
            parts.append("retryPolicy maxAttempts \(retry.maxAttempts), " + retry.codes.map(\.name).joined(separator: " "))
        } else if let hedging = methodConfig.hedgingPolicy {
            parts.append("hedgingPolicy maxAttempts \(hedging.maxAttempts)")
        } else {
            parts.append("no retryPolicy")
        }
        if let timeout = methodConfig.timeout { parts.append("timeout \(ForeignDuration.protoText(timeout))") }
        return parts.joined(separator: ", ")
    }

    /// gRPC's own lookup: the method config for `service/method`, else the
    /// one for `service`, else the default (`*`, a name with neither).
    func candidate(named selection: String, among candidates: [ImportCandidate]) -> ImportCandidate? {
        if let exact = candidates.first(where: { $0.answers(to: selection) }) { return exact }
        let trimmed = selection.hasPrefix("/") ? String(selection.dropFirst()) : selection
        if let exact = candidates.first(where: { $0.answers(to: trimmed) }) { return exact }
        if let slash = trimmed.firstIndex(of: "/") {
            let service = String(trimmed[..<slash])
            if let match = candidates.first(where: { $0.answers(to: service) }) { return match }
        }
        return candidates.first { $0.answers(to: "*") }
    }

    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy {
        try importCandidates([candidate], from: file)[0].get()
    }

    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        let config: GRPCServiceConfig
        do {
            config = try read(file)
        } catch {
            return candidates.map { _ in .failure(error) }
        }
        let byPlace = Dictionary(config.methodConfigs.map { ($0.node.location, $0) }, uniquingKeysWith: { first, _ in first })
        let named = config.methodConfigs.filter { !$0.names.isEmpty }.count
        return candidates.map { candidate in
            guard let methodConfig = byPlace[candidate.location] else {
                return .failure(InteropError(.selection, at: candidate.location, "expected a methodConfig at this place, found none"))
            }
            let name = named == 1 ? file.baseName : candidate.name
            return .success(GRPCImporter.importMethodConfig(methodConfig, of: config, name: name, path: file.path))
        }
    }

    var canExport: Bool { true }

    func export(_ policy: Policy, file: String) -> ExportResult? {
        GRPCExporter.export(policy, file: file)
    }
}
