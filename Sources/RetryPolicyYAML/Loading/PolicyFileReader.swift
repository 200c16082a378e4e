import RetryPolicyCore

/// Reads policy files through a ``PolicyRoot``: never outside it, never a
/// special file, never more than the size limit (so a huge file or an
/// endless device fails fast instead of filling memory).
enum PolicyFileReader {
    /// What is read.
    enum Purpose {
        /// A file the caller named itself (an argument, a store's file).
        case named
        /// A file another file refers to (`extends`, `parity`, a stack
        /// layer): it must also be named `*.yaml` or `*.yml`, so that a
        /// reference cannot make a credentials file or a key a policy.
        case referenced
    }

    /// The file's bytes, or a diagnostic at `location` (the file itself
    /// when `nil`) explaining why it is not read.
    static func read(
        _ path: String, root: PolicyRoot, limits: YAMLLimits, purpose: Purpose = .named,
        reportedAt location: SourceLocation? = nil
    ) -> Result<[UInt8], PolicyLoadError> {
        readLocated(path, root: root, limits: limits, purpose: purpose, reportedAt: location).map(\.bytes)
    }

    /// ``read(_:root:limits:purpose:reportedAt:)``, with the canonical path
    /// the file was read from.
    static func readLocated(
        _ path: String, root: PolicyRoot, limits: YAMLLimits, purpose: Purpose = .named,
        reportedAt location: SourceLocation? = nil
    ) -> Result<PolicyRoot.ReadFile, PolicyLoadError> {
        readLocated(path, found: root.locate(path), root: root, limits: limits, purpose: purpose, reportedAt: location)
    }

    /// ``readLocated(_:root:limits:purpose:reportedAt:)`` for a path the
    /// root has already resolved (`found` is `root.locate(path)`), so that
    /// a caller that needs the canonical path first resolves it once.
    static func readLocated(
        _ path: String, found: Result<PolicyRoot.Located, PolicyRoot.Denial>, root: PolicyRoot, limits: YAMLLimits,
        purpose: Purpose = .named, reportedAt location: SourceLocation? = nil
    ) -> Result<PolicyRoot.ReadFile, PolicyLoadError> {
        let at = location ?? SourceLocation(file: path, line: 1, column: 1)
        switch check(path, found: found, root: root, purpose: purpose) {
        case .failure(let problem):
            return .failure(PolicyLoadError(Diagnostic(problem.rule, at: at, problem.message, suggestion: problem.suggestion)))
        case .success(let located):
            switch root.fileSystem.contents(ofFileAt: located.canonicalPath, limit: limits.maxBytes) {
            case .success(let bytes):
                return .success(PolicyRoot.ReadFile(canonicalPath: located.canonicalPath, bytes: bytes))
            case .failure(.tooLarge):
                return .failure(PolicyLoadError(Diagnostic(
                    .limitExceeded, at: at,
                    "expected a policy file of at most \(limits.maxBytes) bytes, found a larger file")))
            case .failure(.notRegular(let kind)):
                return .failure(PolicyLoadError(Diagnostic(
                    .unreadableFile, at: at, "expected a readable policy file at '\(path)', found \(kind)")))
            case .failure(.system(let reason)):
                return .failure(PolicyLoadError(Diagnostic(
                    .unreadableFile, at: at, "expected a readable policy file at '\(path)', found a file that cannot be read (\(reason))")))
            }
        }
    }

    struct Problem: Error {
        var rule: LoaderRule
        var message: String
        var suggestion: String?
    }

    /// `path` checked to be a regular file the loader may read, without
    /// opening it.
    static func locate(_ path: String, root: PolicyRoot, purpose: Purpose) -> Result<PolicyRoot.Located, Problem> {
        check(path, found: root.locate(path), root: root, purpose: purpose)
    }

    /// ``locate(_:root:purpose:)`` for a path already resolved.
    static func check(
        _ path: String, found: Result<PolicyRoot.Located, PolicyRoot.Denial>, root: PolicyRoot, purpose: Purpose
    ) -> Result<PolicyRoot.Located, Problem> {
        switch found {
        case .failure(let denial):
            switch denial.kind {
            case .notFound:
                return .failure(Problem(rule: .unreadableFile, message: "expected a readable policy file at '\(path)', found no such file"))
            case .outsideRoot, .linkLoop, .gitDirectory, .specialFileSystem:
                return .failure(Problem(
                    rule: .outsideRoot,
                    message: "expected a policy file inside the root \(root.path), found \(denial.reason) at '\(path)'; it is not read",
                    suggestion: denial.kind == .outsideRoot ? "move the file inside the root, or set the root with --root" : nil))
            }
        case .success(let located):
            guard located.kind == .regular else {
                return .failure(Problem(
                    rule: .unreadableFile, message: "expected a readable policy file at '\(path)', found \(located.kind)"))
            }
            if purpose == .referenced && !isPolicyName(path) {
                return .failure(Problem(
                    rule: .outsideRoot, message: "expected a policy file named *.yaml or *.yml, found '\(path)'; it is not read",
                    suggestion: "refer to policy files only"))
            }
            if purpose == .referenced && located.throughLink && !isPolicyName(located.canonicalPath) {
                return .failure(Problem(
                    rule: .outsideRoot,
                    message: "expected '\(path)' to lead to a policy file named *.yaml or *.yml, found a link to '\(located.canonicalPath)'; it is not read"))
            }
            return .success(located)
        }
    }

    static func isPolicyName(_ path: String) -> Bool {
        PolicyFileName.isYAML(path)
    }

    /// `relative` resolved against the directory of `file`, spelt the way
    /// the user spelt `file` so messages show familiar paths.
    static func resolve(_ relative: String, from file: String) -> String {
        if relative.hasPrefix("/") { return relative }
        guard let slash = file.lastIndex(of: "/") else { return relative }
        return String(file[...slash]) + relative
    }
}
