import RetryPolicyCore

extension PolicyRoot {
    /// A file found under the paths a command was given.
    package struct FoundFile: Sendable, Hashable {
        /// As the user would spell it: the argument, or the directory
        /// argument followed by the names walked through.
        package var path: String
        /// Why the file is not read (a link leading out of the root, a
        /// FIFO named `*.yaml`...), reported at the file itself.
        package var problem: Diagnostic?

        package init(path: String, problem: Diagnostic? = nil) {
            self.path = path
            self.problem = problem
        }
    }

    /// A path given on the command line that cannot be used at all.
    public struct ArgumentError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The files under `paths` whose names `accept` takes: files as given
    /// (they must lie inside the root), directories walked recursively in
    /// name order, skipping dotfiles and dot-folders.
    ///
    /// Walking never follows a symbolic link to a directory, so a link
    /// loop cannot make it run long, and every directory is read once. A
    /// link to a file is followed only to a regular `*.yaml`/`*.yml` file
    /// inside the root; any other link is reported at the link, never
    /// opened. Each file is listed once, however many links lead to it
    /// (a link and its target: the target).
    package func files(under paths: [String], accept: (String) -> Bool) throws(ArgumentError) -> [FoundFile] {
        var found: [(file: FoundFile, canonical: String?, viaLink: Bool)] = []
        for path in paths {
            let located: Located
            switch locate(path) {
            case .success(let success): located = success
            case .failure(let denial) where denial.kind == .notFound:
                throw ArgumentError(description: noSuchFileMessage(path))
            case .failure(let denial): throw ArgumentError(description: "\(path): \(denial.reason)")
            }
            if located.kind == .directory {
                walk(located.canonicalPath, spelt: path, accept: accept, into: &found)
            } else if located.kind != .regular {
                // A FIFO, socket or device: reported at once, never opened.
                found.append((
                    FoundFile(path: path, problem: Diagnostic(
                        .unreadableFile, at: SourceLocation(file: path, line: 1, column: 1),
                        "expected a readable policy file at '\(path)', found \(located.kind)")),
                    nil, false))
            } else {
                switch PolicyFileReader.locate(path, root: self, purpose: .named) {
                case .success(let file): found.append((FoundFile(path: path), file.canonicalPath, false))
                case .failure(let problem): throw ArgumentError(description: "\(path): \(problem.message)")
                }
            }
        }
        // Once per file: a file reached directly wins over a link to it.
        var direct: Set<String> = []
        for entry in found where !entry.viaLink { if let canonical = entry.canonical { direct.insert(canonical) } }
        var seen: Set<String> = []
        var result: [FoundFile] = []
        for entry in found {
            if let canonical = entry.canonical {
                if entry.viaLink && direct.contains(canonical) { continue }
                guard seen.insert(canonical).inserted else { continue }
            }
            result.append(entry.file)
        }
        return result
    }

    private func walk(
        _ directory: String, spelt: String, accept: (String) -> Bool,
        into found: inout [(file: FoundFile, canonical: String?, viaLink: Bool)]
    ) {
        guard let names = fileSystem.names(inDirectoryAt: directory) else { return }
        for name in names.sorted() where !name.hasPrefix(".") {
            let shown = spelt == "." ? name : (spelt.hasSuffix("/") ? spelt + name : spelt + "/" + name)
            let path = directory == "/" ? "/" + name : directory + "/" + name
            switch fileSystem.kind(ofEntryAt: path) {
            case .directory?:
                walk(path, spelt: shown, accept: accept, into: &found)
            case .regular?:
                if accept(name) { found.append((FoundFile(path: shown), path, false)) }
            case .symbolicLink?:
                guard accept(name) else { continue }
                switch PolicyFileReader.locate(shown, root: self, purpose: .referenced) {
                case .success(let target):
                    found.append((FoundFile(path: shown), target.canonicalPath, true))
                case .failure(let problem):
                    // A link to a directory is simply not followed.
                    if case .success(let target) = locate(path), target.kind == .directory { continue }
                    found.append((
                        FoundFile(path: shown, problem: Diagnostic(
                            problem.rule, at: SourceLocation(file: shown, line: 1, column: 1),
                            "symbolic link: " + problem.message, suggestion: problem.suggestion)),
                        nil, true))
                }
            case let kind?:
                guard accept(name) else { continue }
                found.append((
                    FoundFile(path: shown, problem: Diagnostic(
                        .unreadableFile, at: SourceLocation(file: shown, line: 1, column: 1),
                        "expected a readable policy file at '\(shown)', found \(kind); it is not opened")),
                    nil, false))
            case nil:
                continue
            }
        }
    }

    /// The text of a file inside the root, for quoting its lines in a
    /// report: `nil` for anything ``PolicyLoader`` would not read as a
    /// policy file, a file not named `*.yaml`/`*.yml` or a link to one
    /// among them.
    package func quotableText(of path: String, limits: YAMLLimits = .default) -> String? {
        guard case .success(let bytes) = PolicyFileReader.read(path, root: self, limits: limits, purpose: .referenced) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of a file inside the root that the loader may read (the
    /// same checks), or the located reason it is not read.
    package func readFile(_ path: String, limits: YAMLLimits = .default) -> Result<[UInt8], PolicyLoadError> {
        PolicyFileReader.read(path, root: self, limits: limits)
    }

    /// A file another file refers to, read as the loader reads `extends`:
    /// inside the root, named `*.yaml`/`*.yml`, a regular file; the
    /// reason otherwise, reported at `location`.
    package func readReferencedFile(
        _ path: String, reportedAt location: SourceLocation, limits: YAMLLimits = .default
    ) -> Result<[UInt8], PolicyLoadError> {
        PolicyFileReader.read(path, root: self, limits: limits, purpose: .referenced, reportedAt: location)
    }

    /// Whether `path` names an existing entry the root may look at.
    public func exists(_ path: String) -> Bool {
        if case .success = locate(path) { return true }
        return false
    }
}
