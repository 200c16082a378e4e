import RetryPolicyCore
import RetryPolicyYAML

/// Everything one foreign format does: recognise its files, list the retry
/// configurations a file holds, import one as a policy and, where the
/// format can hold a policy, export one. A new format is one conforming
/// type, with its ``InteropFormat`` declared beside it, added to
/// ``InteropRegistry/handlers``; the commands' help and format lists, the
/// fuzz targets and the golden file tests take it from there.
public protocol InteropFormatHandler: Sendable {
    var format: InteropFormat { get }

    /// What the format's file is, for messages (`gRPC service config`).
    var title: String { get }

    /// What `import` reads, for its help: `an AWS shared config file`.
    var importHelp: String { get }

    /// What `import --select` names in this format, for its help: `an
    /// AWS profile`.
    var selectionHelp: String { get }

    /// What `export` writes, for its help; `nil` for an import-only
    /// format.
    var exportHelp: String? { get }

    /// What one candidate is called in messages (`method config`, `route`).
    var candidateNoun: String { get }

    /// Whether ``recognizes(_:)`` can tell this format from its content.
    var detectsByContent: Bool { get }

    /// Whether `file` is written in this format, judged by its content.
    func recognizes(_ file: ForeignFile) -> Bool

    /// Every retry configuration `file` holds, in file order. Throws the
    /// format's own validation errors (for the whole file, as the format's
    /// consumer validates it) and ``InteropRule/noRetrySettings`` when the
    /// file holds none.
    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate]

    /// The candidate `selection` names, or `nil`.
    func candidate(named selection: String, among candidates: [ImportCandidate]) -> ImportCandidate?

    /// Which candidate to import when none is named: `nil` when the choice
    /// is ambiguous.
    func defaultCandidate(among candidates: [ImportCandidate]) -> ImportCandidate?

    /// One candidate as a policy, with comments and warnings.
    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy

    /// Several candidates, each imported on its own, with the file read
    /// once for all of them (a file of thousands of method configs takes
    /// as long as reading it, not thousands of times as long).
    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>]

    /// Whether ``export(_:file:)`` writes this format.
    var canExport: Bool { get }

    /// `policy` in this format, with what it cannot carry; `nil` for an
    /// import-only format.
    func export(_ policy: Policy, file: String) -> ExportResult?
}

extension InteropFormatHandler {
    public func candidate(named selection: String, among candidates: [ImportCandidate]) -> ImportCandidate? {
        candidates.first { $0.answers(to: selection) }
    }

    public func defaultCandidate(among candidates: [ImportCandidate]) -> ImportCandidate? {
        candidates.count == 1 ? candidates[0] : nil
    }

    public func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        candidates.map { candidate in Result { () throws(InteropError) in try importCandidate(candidate, from: file) } }
    }

    public var canExport: Bool { false }

    public var exportHelp: String? { nil }

    public var detectsByContent: Bool { true }

    public func export(_ policy: Policy, file: String) -> ExportResult? { nil }
}
