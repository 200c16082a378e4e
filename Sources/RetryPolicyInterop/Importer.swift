import RetryPolicyCore
import RetryPolicyYAML

/// Other layers' configuration files to policies, through the handlers of
/// ``InteropRegistry``.
public enum Importer {
    /// Imports `bytes` (the file at `path`) written in `format`.
    ///
    /// `selection` names one of several retry configurations (a gRPC
    /// `SERVICE` or `SERVICE/METHOD`, an Envoy route or virtual host, an
    /// Istio route or VirtualService, a resilience4j instance, an AWS
    /// profile). Without it a file that holds several is refused with
    /// their names (``InteropRule/selection``).
    public static func importPolicy(
        bytes: [UInt8], path: String, from format: InteropFormat, selection: String? = nil
    ) throws(InteropError) -> ImportedPolicy {
        try importPolicy(ForeignFile(bytes: bytes, path: path), from: format, selection: selection)
    }

    /// Imports one retry configuration of `file`; see
    /// ``importPolicy(bytes:path:from:selection:)``.
    public static func importPolicy(_ file: ForeignFile, from format: InteropFormat, selection: String? = nil) throws(InteropError) -> ImportedPolicy {
        let handler = format.handler
        let candidates = try handler.candidates(in: file)
        let chosen = try choose(selection, among: candidates, handler: handler, file: file)
        var imported = try handler.importCandidate(chosen, from: file)
        if ImportFileNames.sanitized(chosen.name) == nil {
            let position = candidates.firstIndex { $0.name == chosen.name } ?? 0
            imported.name = ImportFileNames.fallback(noun: handler.candidateNoun, position: position)
            imported.warnings.insert(ImportFileNames.renamed(chosen, to: imported.name), at: 0)
        }
        return imported
    }

    /// Every retry configuration of `file`, each imported on its own, in
    /// file order, each policy named after its candidate
    /// (`ImportFileNames`: a name of its own, fit for a file name); and
    /// the errors of those that do not import (an AWS profile with an
    /// invalid value does not keep the others from importing). Throws what
    /// makes the whole file unreadable, and `InteropRule/fileName` when
    /// two candidates would share a name.
    public static func importEvery(_ file: ForeignFile, from format: InteropFormat) throws(InteropError) -> (policies: [ImportedPolicy], errors: [Diagnostic]) {
        let handler = format.handler
        let candidates = try handler.candidates(in: file)
        let naming = try ImportFileNames.assign(candidates, noun: handler.candidateNoun)
        var policies: [ImportedPolicy] = []
        var errors: [Diagnostic] = []
        for (index, result) in handler.importCandidates(candidates, from: file).enumerated() {
            switch result {
            case .success(var imported):
                imported.name = naming.names[index]
                if let warning = naming.warnings[index] { imported.warnings.insert(warning, at: 0) }
                policies.append(imported)
            case .failure(let error):
                errors += error.diagnostics
            }
        }
        return (policies, errors)
    }

    /// The retry configurations `file` holds, as `format` reads it.
    public static func candidates(_ file: ForeignFile, from format: InteropFormat) throws(InteropError) -> [ImportCandidate] {
        try format.handler.candidates(in: file)
    }

    /// The format of a file a stack layer names, by its content (a gRPC
    /// service config has `methodConfig`, an Istio resource
    /// `kind: VirtualService`, an Envoy route `retry_policy`). `nil` for
    /// anything else, such as a policy.
    public static func detectFormat(bytes: [UInt8], path: String) -> InteropFormat? {
        detectFormat(ForeignFile(bytes: bytes, path: path))
    }

    public static func detectFormat(_ file: ForeignFile) -> InteropFormat? {
        if case .success(let documents) = file.documents, documents.count == 1, let root = documents.first,
            ForeignReader.value(root, "version") != nil,
            ForeignReader.value(root, "rules") != nil || ForeignReader.value(root, "stack") != nil || ForeignReader.value(root, "name") != nil
        {
            return nil
        }
        return InteropRegistry.handlers.first { $0.recognizes(file) }?.format
    }

    /// The format to read `file` in, for a command's `--from`: `given`,
    /// unless the content says the file is of another format (an Envoy
    /// route given as a gRPC service config, say: that format is named);
    /// without `given`, the format ``detectFormat(_:)`` finds, as
    /// `diff --against` and stack layers detect it.
    public static func format(of file: ForeignFile, given: InteropFormat?) throws(InteropError) -> InteropFormat {
        let detected = detectFormat(file)
        guard let given else {
            guard let detected else {
                let detectable = InteropRegistry.handlers.filter(\.detectsByContent).map(\.format.title)
                let undetectable = InteropRegistry.handlers.filter { !$0.detectsByContent }.map { "--from \($0.format)" }
                throw InteropError(
                    .notThisFormat, at: file.start,
                    "expected a file whose content names its format (\(detectable.joined(separator: ", "))), found none of them",
                    suggestion: "name its format with --from" + (undetectable.isEmpty ? "" : " (\(undetectable.joined(separator: ", ")) is never detected)"))
            }
            return detected
        }
        if let detected, detected != given, !given.handler.recognizes(file) {
            throw InteropError(
                .notThisFormat, at: file.start,
                "expected \(withArticle(given)) (--from \(given)), found \(withArticle(detected))",
                suggestion: "this looks like \(withArticle(detected)); use --from \(detected)")
        }
        return given
    }

    /// "an Envoy route configuration", "a gRPC service config".
    static func withArticle(_ format: InteropFormat) -> String {
        let vowel = format.title.first.map { "AEIOUaeiou".contains($0) } ?? false
        return (vowel ? "an " : "a ") + format.title
    }

    /// The candidate `selection` names, or the only one.
    static func choose(
        _ selection: String?, among candidates: [ImportCandidate], handler: any InteropFormatHandler, file: ForeignFile
    ) throws(InteropError) -> ImportCandidate {
        let noun = handler.candidateNoun
        if let selection {
            if let match = handler.candidate(named: selection, among: candidates) { return match }
            throw InteropError(
                .selection, at: file.start,
                "expected the name of a \(noun) to import, found \"\(selection)\", which names none; the file has \(listing(candidates))")
        }
        if let only = handler.defaultCandidate(among: candidates) { return only }
        // At the first candidate, naming the second: the place where a
        // second one makes the choice ambiguous.
        let second = candidates.count > 1 ? " (the second at \(candidates[1].location))" : ""
        throw InteropError(
            .selection, at: candidates.first?.location ?? file.start,
            "expected one \(noun) to import, found \(candidates.count)\(second): \(listing(candidates))",
            suggestion: "choose one by name: import --select NAME (or --output DIR for every one), select: NAME in a stack layer")
    }

    /// `name (line 3: summary), ...`, at most ten.
    static func listing(_ candidates: [ImportCandidate]) -> String {
        let shown = candidates.prefix(10).map { "\($0.name) (line \($0.location.line): \($0.summary))" }
        let more = candidates.count > 10 ? ", and \(candidates.count - 10) more" : ""
        return shown.joined(separator: ", ") + more
    }
}
