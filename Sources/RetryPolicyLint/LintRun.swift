import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyYAML

/// One run of the linter over files and directories inside a root: finds
/// the policy files, loads each with what it refers to (extended policies,
/// parity partners, stack layers) through the root, checks them, and
/// renders the report.
///
/// Everything is read through `PolicyRoot`, so a policy under review
/// cannot make lint read, or print, a file outside the root: a reference
/// that leads out is a located error on the referencing line, and a
/// referenced file that is not a policy is reported without quoting it.
public struct LintRun: Sendable {
    public var root: PolicyRoot
    public var linter: PolicyLinter

    public init(root: PolicyRoot, configuration: LintConfiguration = LintConfiguration()) {
        self.root = root
        self.linter = PolicyLinter(configuration: configuration)
    }

    /// The YAML files under `paths`, walked as `PolicyRoot.files(under:accept:)`
    /// describes (tests files included: discovery tells them apart).
    package func yamlFiles(under paths: [String]) throws(PolicyRoot.ArgumentError) -> [PolicyRoot.FoundFile] {
        try root.files(under: paths) { PolicyFileName.isYAML($0) }
    }

    package static func isTestFile(_ name: String) -> Bool {
        PolicyFileName.isTestFile(name)
    }

    /// The name standard input is reported under when `-` is linted.
    package static let standardInputName = PolicyRoot.standardInputName

    /// Lints every policy file under `paths`; `-` is standard input, read
    /// through `standardInput` (its references are relative to the working
    /// directory).
    ///
    /// A file named in `paths` is linted as a policy, except a tests file,
    /// which is one error saying to run `retry-policy test`. A file found
    /// by walking a directory is linted only when the settings'
    /// `include:`/`exclude:` select it and its content is a policy
    /// (`PolicyFileKind`); the others are counted in the report.
    public func lint(
        paths: [String], standardInput: () -> Result<[UInt8], PolicyLoadError> = { .success([]) }
    ) throws(PolicyRoot.ArgumentError) -> LintReport {
        try lint(paths: paths, cache: LintRunCache(), standardInput: standardInput)
    }

    /// ``lint(paths:standardInput:)`` with the run's shared state.
    func lint(
        paths: [String], cache: LintRunCache, standardInput: () -> Result<[UInt8], PolicyLoadError> = { .success([]) }
    ) throws(PolicyRoot.ArgumentError) -> LintReport {
        var report = LintReport(files: [], findings: [])
        if paths.contains("-") {
            report.files.append(Self.standardInputName)
            switch standardInput() {
            case .success(let bytes): report.findings += lint(bytes: bytes, path: Self.standardInputName)
            case .failure(let error): report.findings += error.diagnostics.map { LintFinding($0) }
            }
        }
        let named = paths.filter { $0 != "-" }
        // Arguments that are not directories: the user chose these files.
        let chosen = Set(named.filter { path in
            if case .success(let located) = root.locate(path), located.kind == .directory { return false }
            return true
        })
        for file in named.isEmpty ? [] : try yamlFiles(under: named) {
            if chosen.contains(file.path) {
                report.files.append(file.path)
                if let problem = file.problem {
                    report.findings.append(LintFinding(problem))
                } else if PolicyFileName.isTestFile(file.path) {
                    report.findings.append(Self.testsFileNamed(file.path))
                } else {
                    report.findings += lint(file: file.path, cache: cache)
                }
                continue
            }
            if let walked = walkedPath(file.path), !linter.configuration.selects(canonicalPath: walked) {
                report.excluded += 1
                continue
            }
            if let problem = file.problem {
                report.files.append(file.path)
                report.findings.append(LintFinding(problem))
                continue
            }
            if PolicyFileName.isTestFile(file.path) {
                report.skippedTestsFiles += 1
                continue
            }
            let read: PolicyRoot.ReadFile
            switch root.readLocatedFile(file.path) {
            case .success(let success): read = success
            case .failure(let error):
                // A file too large to read whole is judged by its beginning;
                // one that cannot be read at all is reported as for a policy.
                if error.diagnostics.first?.id == LoaderRule.limitExceeded.id {
                    switch headKind(of: file.path) {
                    case .testsFile?:
                        report.skippedTestsFiles += 1
                        continue
                    case .other?:
                        report.skippedNotPolicies += 1
                        continue
                    case .policy?, nil: break
                    }
                }
                report.files.append(file.path)
                report.findings += error.diagnostics.map { LintFinding($0) }
                continue
            }
            switch PolicyFileKind.of(bytes: read.bytes, path: file.path) {
            case .policy:
                report.files.append(file.path)
                report.findings += lint(read.bytes, path: file.path, located: read, cache: cache)
            case .testsFile: report.skippedTestsFiles += 1
            case .other: report.skippedNotPolicies += 1
            }
        }
        return report
    }

    /// How much of a file too large to read whole is looked at to tell
    /// what it is.
    static let headBytes = 64 * 1024

    /// The kind of a large file told from its first `headBytes`, read
    /// through the root; `nil` when it cannot be read.
    func headKind(of path: String) -> PolicyFileKind? {
        guard case .success(let stream) = root.openForStreaming(path), let head = try? stream.read(upTo: Self.headBytes) else {
            return nil
        }
        // The last line may be cut in the middle.
        let whole = head.lastIndex(of: UInt8(ascii: "\n")).map { Array(head[...$0]) } ?? head
        return PolicyFileKind.of(prefix: whole)
    }

    /// The error for a tests file named on the command line.
    static func testsFileNamed(_ path: String) -> LintFinding {
        LintFinding(
            id: LoaderRule.wrongDocumentKind.id, severity: .error, location: SourceLocation(file: path, line: 1, column: 1),
            message: "this is a tests file: run `retry-policy test \(path)`",
            suggestion: "lint checks policies; `retry-policy test` runs the cases of a tests file against its policy")
    }

    /// Where a walked file lies, its directory resolved but not the file
    /// itself, so that a symbolic link is selected by its own name.
    func walkedPath(_ path: String) -> String? {
        RootRelativePaths(root: root).canonicalDirectoryPath(path)
    }

    /// Lints one file: loads it, loads what it refers to, runs the rules
    /// and applies suppressions and settings.
    public func lint(file: String) -> [LintFinding] {
        lint(file: file, cache: LintRunCache())
    }

    /// Lints one file, sharing what `cache` holds with the other files of
    /// the run.
    func lint(file: String, cache: LintRunCache) -> [LintFinding] {
        switch root.readLocatedFile(file) {
        case .success(let read): return lint(read.bytes, path: file, located: read, cache: cache)
        case .failure(let error): return error.diagnostics.map { LintFinding($0) }
        }
    }

    /// Lints a policy or stack file's bytes, named `path` in findings.
    public func lint(bytes: [UInt8], path file: String) -> [LintFinding] {
        lint(bytes, path: file, located: nil, cache: LintRunCache())
    }

    /// Lints a file's bytes; `located` is where the root read them from
    /// (`nil` for standard input), which keys what the run shares.
    func lint(_ bytes: [UInt8], path file: String, located: PolicyRoot.ReadFile?, cache: LintRunCache) -> [LintFinding] {
        let source = String(decoding: bytes, as: UTF8.self)
        let loader = PolicyLoader(root: root, cache: cache.loads)
        var findings: [LintFinding] = []
        var checked: Policy?
        do {
            let document: PolicyDocument
            if let located {
                document = try loader.loadDocument(located, path: file)
            } else {
                document = try loader.loadDocument(bytes: bytes, path: file)
            }
            switch document {
            case .policy(let policy):
                checked = policy
                var parity: [String: Policy] = [:]
                var comparisons: [String: PolicyComparison] = [:]
                let parityLocation = policy.keyLocations["parity"]
                let at = parityLocation ?? policy.location ?? SourceLocation(file: file, line: 1, column: 1)
                for reference in policy.parity {
                    switch loadReferenced(reference, from: file, at: at, loader: loader) {
                    case .success(let partner):
                        parity[reference] = partner.policy
                        if let located, comparisons[reference] == nil {
                            comparisons[reference] = cache.comparison(
                                of: policy, at: located.canonicalPath, with: partner.policy, at: partner.canonicalPath)
                        }
                    case .failure(let problem):
                        findings.append(LintFinding(
                            id: problem.id, severity: .error, location: at,
                            message: "parity policy \(reference) cannot be loaded: \(problem.reason)"))
                    }
                }
                let context = LintContext(
                    file: file, parityPolicies: parity, parityLocation: parityLocation, parityComparisons: comparisons)
                findings += linter.check(policy: policy, context: context)
            case .stack(var stack):
                // Point the amplification finding at the `stack:` list rather than the top of the file.
                if let stackLocation = keyLocation("stack", in: source, file: file) { stack.location = stackLocation }
                var layers: [(layer: PolicyStack.Layer, policy: Policy)] = []
                var formats: [InteropFormat?] = []
                for layer in stack.layers {
                    let at = layer.location ?? stack.location ?? SourceLocation(file: file, line: 1, column: 1)
                    switch loadReferenced(layer.policyPath, from: file, at: at, loader: loader, foreign: true, selection: layer.selection) {
                    case .success(let loaded):
                        layers.append((layer, loaded.policy))
                        formats.append(loaded.format)
                    case .failure(let problem):
                        findings.append(LintFinding(
                            id: problem.id, severity: .error, location: at,
                            message: "layer \(layer.name): policy \(layer.policyPath) cannot be loaded: \(problem.reason)"))
                    }
                }
                findings += linter.check(stack: stack, layers: layers, file: file)
                findings += linter.check(stack: stack, layers: layers, importedFrom: formats, file: file)
            }
        } catch {
            findings += error.diagnostics.map { LintFinding($0) }
        }
        return Self.attachingFixes(to: linter.finalize(findings, source: source, file: file), bytes: bytes, file: file, policy: checked)
    }

    /// `findings` with the fixes of those that have a mechanical one
    /// (`LintFixes`), made from the bytes that were linted.
    static func attachingFixes(to findings: [LintFinding], bytes: [UInt8], file: String, policy: Policy?) -> [LintFinding] {
        var source: FixSource?
        return findings.map { finding in
            guard finding.location.file == file else { return finding }
            if source == nil { source = FixSource(file: file, bytes: bytes) }
            var fixed = finding
            fixed.fix = LintFixes.fix(for: finding, in: source!, policy: policy)
            return fixed
        }
    }

    /// Why a referenced policy cannot be used, said without quoting it:
    /// the loader's id when the file may not be read (RP008, RP009, RP003),
    /// RP025 when it does not load.
    struct ReferenceProblem: Error {
        var id: String
        var reason: String
    }

    /// A policy another file names (`parity`, a stack layer), read as the
    /// loader reads `extends`. A failure is described by where and which
    /// rule only: the messages of a file that may not be a policy can
    /// quote what it holds.
    /// With `foreign`, a gRPC service config, Envoy route configuration
    /// or Istio VirtualService is imported on the fly (a stack layer may
    /// name the mesh's or channel's own configuration).
    /// The policy comes with the canonical path it was read from.
    func loadReferenced(
        _ reference: String, from file: String, at: SourceLocation, loader: PolicyLoader, foreign: Bool = false,
        selection: String? = nil
    ) -> Result<(policy: Policy, canonicalPath: String, format: InteropFormat?), ReferenceProblem> {
        let path = Self.resolve(reference, relativeTo: file)
        let read: PolicyRoot.ReadFile
        switch root.readLocatedReferencedFile(path, reportedAt: at, limits: loader.limits) {
        case .success(let file): read = file
        case .failure(let error):
            let first = error.diagnostics.first
            return .failure(ReferenceProblem(id: first?.id ?? LoaderRule.unreadableFile.id, reason: first?.message ?? "unreadable"))
        }
        let bytes = read.bytes
        // A file this run loaded as a policy states `version` and `name`,
        // which no other format does: it is not parsed again to tell.
        if foreign, selection == nil, let loaded = loader.loadedPolicy(read, path: path) { return .success((loaded, read.canonicalPath, nil)) }
        let foreignFile = foreign ? ForeignFile(bytes: bytes, path: path) : nil
        if let foreignFile, let format = Importer.detectFormat(foreignFile) {
            do {
                return .success((try Importer.importPolicy(foreignFile, from: format, selection: selection).policy, read.canonicalPath, format))
            } catch {
                guard let first = error.diagnostics.first else {
                    return .failure(ReferenceProblem(id: LoaderRule.referenceProblem.id, reason: "it is not a valid \(format.title)"))
                }
                // A file that imports but not on its own (several routes, no
                // retry settings) says what it holds and how to choose.
                if first.id == InteropRule.selection.id || first.id == InteropRule.noRetrySettings.id {
                    let hint = first.id == InteropRule.selection.id ? " (name one with select: in the layer)" : ""
                    return .failure(ReferenceProblem(
                        id: LoaderRule.referenceProblem.id,
                        reason: "\(first.message)\(hint) (\(first.citation))"))
                }
                return .failure(ReferenceProblem(
                    id: LoaderRule.referenceProblem.id, reason: "it is not a valid \(format.title) (\(first.citation))"))
            }
        }
        if selection != nil {
            return .failure(ReferenceProblem(
                id: LoaderRule.referenceProblem.id,
                reason: "select: names one retry configuration of another tool's file, and this is a policy"))
        }
        do {
            return .success((try loader.loadPolicy(read, path: path), read.canonicalPath, nil))
        } catch {
            let count = error.diagnostics.count
            let first = error.diagnostics.first.map { " (\($0.citation))" } ?? ""
            return .failure(ReferenceProblem(
                id: LoaderRule.referenceProblem.id,
                reason: "it has \(plural(count, "problem"))\(first); lint it on its own to see them"))
        }
    }

    /// `reference` resolved against the directory of `file`, as spelt.
    package static func resolve(_ reference: String, relativeTo file: String) -> String {
        PolicyLoader.resolve(reference, relativeTo: file)
    }

    /// Where a top-level `key:` is written, found in the text because the
    /// model keeps no location for plain lists.
    func keyLocation(_ key: String, in source: String, file: String) -> SourceLocation? {
        for (index, line) in SourceLines.split(source).enumerated()
        where line.hasPrefix(key + ":") {
            return SourceLocation(file: file, line: index + 1, column: 1)
        }
        return nil
    }

    /// The report in `format`. Human output quotes source lines only of
    /// files the loader may read inside the root.
    public func render(_ report: LintReport, format: LintFormat, colour: Bool = false, strict: Bool = false) -> String {
        render(report, format: format, colour: colour, failLevel: strict ? .warning : .error)
    }

    /// The report in `format`, failing (JUnit) at `failLevel`; `quiet`
    /// leaves the summary line out of the human and GitHub forms.
    ///
    /// Paths are printed as the report names them. `pathsFromRoot` says
    /// they are relative to the root (`rootRelative(_:)`): SARIF then
    /// gives them the base `%SRCROOT%`. The human form reads the lines it
    /// quotes from the root.
    public func render(
        _ report: LintReport, format: LintFormat, colour: Bool = false, failLevel: Diagnostic.Severity, quiet: Bool = false,
        pathsFromRoot: Bool = false
    ) -> String {
        let paths = RootRelativePaths(root: root)
        switch format {
        case .human:
            let root = self.root
            return HumanFormatter(colour: colour) { root.quotableText(of: paths.readablePath($0)) ?? root.quotableText(of: $0) }
                .render(report, quiet: quiet)
        case .json: return JSONFormatter.render(report)
        case .sarif: return SARIFFormatter.render(report, rooted: pathsFromRoot)
        case .github: return GitHubFormatter.render(report, quiet: quiet)
        case .junit: return JUnitFormatter(failLevel: failLevel).render(report)
        }
    }

    /// `report` with every path named from the root (`sub/dir/bad.yaml`,
    /// whatever the working directory), as CI annotations and SARIF need.
    package func rootRelative(_ report: LintReport) -> LintReport {
        let paths = RootRelativePaths(root: root)
        return report.mappingPaths(paths.relative)
    }
}
