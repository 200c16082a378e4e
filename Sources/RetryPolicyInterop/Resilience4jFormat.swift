import RetryPolicyCore
import RetryPolicyYAML

extension InteropFormat {
    public static let resilience4j = InteropFormat(declaring: "resilience4j")
}

/// resilience4j retry configuration in Spring Boot YAML:
/// `resilience4j.retry.instances.NAME` (or the older `backends`), with
/// `configs` as base configurations.
struct Resilience4jFormat: InteropFormatHandler {
    var format: InteropFormat { .resilience4j }
    var candidateNoun: String { "retry instance" }
    var title: String { "resilience4j retry configuration" }
    var importHelp: String { "a resilience4j retry configuration (Spring YAML)" }
    var selectionHelp: String { "a resilience4j instance" }

    func recognizes(_ file: ForeignFile) -> Bool {
        guard case .success(let documents) = file.documents else { return false }
        return documents.contains { Resilience4jImporter.retryBlock($0) != nil }
    }

    /// The retry block; a Spring file of several documents (profiles
    /// separated by `---`) is read at its first one that has it.
    func retryBlock(_ file: ForeignFile) throws(InteropError) -> YAMLNode {
        let documents = try file.documents.get()
        guard let first = documents.first else {
            throw InteropError(.notThisFormat, at: file.start, "expected resilience4j.retry settings, found an empty file")
        }
        guard let retry = documents.lazy.compactMap(Resilience4jImporter.retryBlock).first else {
            let keys = ForeignReader.entries(first).prefix(6).map(\.key.value)
            throw InteropError(
                .notThisFormat, at: first.location,
                "expected resilience4j.retry settings (resilience4j: retry: instances: NAME:), found "
                    + (keys.isEmpty ? first.kindDescription : "the keys " + keys.joined(separator: ", ")))
        }
        return retry
    }

    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate] {
        let retry = try retryBlock(file)
        let (instances, configs) = Resilience4jImporter.sections(retry)
        guard !instances.isEmpty || !configs.isEmpty else {
            let keys = ForeignReader.entries(retry).map(\.key.value)
            throw InteropError(
                .noRetrySettings, at: retry.location,
                "expected resilience4j.retry.instances or configs, found " + (keys.isEmpty ? "none" : "only " + keys.joined(separator: ", ")))
        }
        let instanceNames = Set(instances.map(\.key.value))
        return instances.map { entry in
            ImportCandidate(name: entry.key.value, summary: "instance" + summary(entry.value), location: entry.key.location, node: entry.value)
        } + configs.map { entry in
            let name = instanceNames.contains(entry.key.value) ? "configs.\(entry.key.value)" : entry.key.value
            return ImportCandidate(
                name: name, aliases: ["configs.\(entry.key.value)"].filter { $0 != name }, summary: "config" + summary(entry.value),
                location: entry.key.location, node: entry.value, context: [])
        }
    }

    func summary(_ node: YAMLNode) -> String {
        var parts: [String] = []
        for key in ["maxAttempts", "waitDuration", "baseConfig"] {
            if let value = ForeignReader.value(node, key, relaxed: true)?.scalarText { parts.append("\(key) \(value)") }
        }
        return parts.isEmpty ? "" : ", " + parts.joined(separator: ", ")
    }

    /// The only instance; with no instances, the only config or
    /// `configs.default`.
    func defaultCandidate(among candidates: [ImportCandidate]) -> ImportCandidate? {
        let instances = candidates.filter { $0.summary.hasPrefix("instance") }
        if instances.count == 1 { return instances[0] }
        if instances.isEmpty {
            if candidates.count == 1 { return candidates[0] }
            return candidates.first { $0.answers(to: "default") }
        }
        return nil
    }

    /// Every candidate imported on its own; an error in a base config,
    /// which every instance inheriting it meets again, is reported once,
    /// at the base config, naming the instances that inherit it.
    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        var results = candidates.map { candidate in
            Result { () throws(InteropError) in try importCandidate(candidate, from: file) }
        }
        // Who met each error, in candidate order.
        var metBy: [Diagnostic: [Int]] = [:]
        for (index, result) in results.enumerated() {
            guard case .failure(let error) = result else { continue }
            for diagnostic in Set(error.diagnostics) { metBy[diagnostic, default: []].append(index) }
        }
        for (index, result) in results.enumerated() {
            guard case .failure(let error) = result else { continue }
            var kept: [Diagnostic] = []
            for diagnostic in error.diagnostics {
                guard let indices = metBy[diagnostic], indices.count > 1 else {
                    kept.append(diagnostic)
                    continue
                }
                // Reported by the config that holds it (else the first that met it).
                let owner = indices.first { !candidates[$0].summary.hasPrefix("instance") } ?? indices[0]
                guard owner == index else { continue }
                var shared = diagnostic
                let heirs = indices.filter { $0 != owner }.map { candidates[$0].name }
                let shown = heirs.prefix(10).joined(separator: ", ") + (heirs.count > 10 ? ", and \(heirs.count - 10) more" : "")
                shared.message += " (inherited by \(shown), which do not import either)"
                kept.append(shared)
            }
            results[index] = .failure(InteropError(kept))
        }
        return results
    }

    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy {
        let retry = try retryBlock(file)
        guard let node = candidate.node else {
            throw InteropError(.selection, at: candidate.location, "expected a retry instance at this place, found none")
        }
        let name = candidate.name.hasPrefix("configs.") ? String(candidate.name.dropFirst("configs.".count)) : candidate.name
        return try Resilience4jImporter.importEntry(node, named: name, policyName: name, retry: retry, path: file.path)
    }
}
