import RetryPolicyCore

/// Resolves `extends`: the extended file's keys are defaults for the
/// extending file's keys (mappings merge key by key, lists and scalars
/// replace), applied before decoding so that every value keeps the location
/// of the file it was written in.
///
/// The extended file is read through the loader's ``PolicyRoot``. Only a
/// file that parses as a policy (a mapping declaring `version: 1`) can
/// have diagnostics of its own; anything else is reported on the
/// `extends` line, without quoting the file, so a reference to a file that
/// is not a policy never echoes what it holds.
struct ExtendsResolver {
    let limits: YAMLLimits
    let root: PolicyRoot
    /// Parsed extended files shared between the loads of one run.
    let cache: PolicyLoadCache?
    var diagnostics: [Diagnostic] = []

    init(limits: YAMLLimits, root: PolicyRoot, cache: PolicyLoadCache? = nil) {
        self.limits = limits
        self.root = root
        self.cache = cache
    }

    /// One spelling for one file, to recognise it reached by two paths.
    func canonical(_ path: String) -> String {
        Self.canonical(path, found: root.locate(path))
    }

    static func canonical(_ path: String, found: Result<PolicyRoot.Located, PolicyRoot.Denial>) -> String {
        (try? found.get().canonicalPath) ?? path
    }

    /// `root` with everything it extends merged underneath it.
    /// - Parameter chain: the files already being resolved, outermost first
    ///   (as written, and canonical for comparison).
    mutating func resolve(_ root: YAMLNode?, path: String, chain: [(shown: String, canonical: String)]) -> YAMLNode? {
        guard let root, let entry = root.entry("extends"),
            case .scalar(let scalar) = entry.value, case .string(let relative) = scalar.resolved, !relative.isEmpty
        else { return root }
        let at = scalar.location
        let basePath = PolicyFileReader.resolve(relative, from: path)
        // Resolved through the root once, for the cycle check and the read.
        let found = self.root.locate(basePath)
        let canonical = Self.canonical(basePath, found: found)
        if let start = chain.firstIndex(where: { $0.canonical == canonical }) {
            let cycle = chain[start...].map(\.shown) + [basePath]
            diagnostics.append(Diagnostic(
                .extendsCycle, at: at,
                "extends: expected a chain of policies without cycles, found \(cycle.joined(separator: " -> "))",
                suggestion: "remove 'extends' from one of these files"))
            return root
        }
        if chain.count > limits.maxExtendsDepth {
            diagnostics.append(Diagnostic(
                .limitExceeded, at: at, "extends: expected at most \(limits.maxExtendsDepth) levels of extends, found more"))
            return root
        }
        let file: PolicyRoot.ReadFile
        switch PolicyFileReader.readLocated(basePath, found: found, root: self.root, limits: limits, purpose: .referenced, reportedAt: at) {
        case .success(let read): file = read
        case .failure(let error):
            diagnostics += error.diagnostics.map { diagnostic in
                var moved = diagnostic
                moved.location = at
                if diagnostic.id == LoaderRule.unreadableFile.id {
                    moved.id = LoaderRule.extendsProblem.id
                }
                moved.message = "extends: " + moved.message
                return moved
            }
            return root
        }
        let baseRoot: YAMLNode?
        do {
            baseRoot = try parse(file, path: basePath)
        } catch {
            // Not YAML: say where, never what (the file may be anything).
            let first = error.diagnostics.first
            diagnostics.append(Diagnostic(
                .extendsProblem, at: at,
                "extends: expected '\(basePath)' to be a policy file, found a file that is not valid YAML"
                    + (first.map { " (\($0.citation))" } ?? ""),
                suggestion: "lint '\(basePath)' on its own to see its problems"))
            return root
        }
        guard let baseRoot, case .mapping = baseRoot else {
            diagnostics.append(Diagnostic(
                .extendsProblem, at: at,
                "extends: expected '\(basePath)' to hold a policy mapping, found \(baseRoot.map(Self.shape) ?? "an empty file")"))
            return root
        }
        if baseRoot["stack"] != nil {
            diagnostics.append(Diagnostic(
                .extendsProblem, at: at, "extends: expected '\(basePath)' to be a policy, found a stack file"))
            return root
        }
        if let version = baseRoot["version"], case .scalar(let versionScalar) = version, case .integer(1) = versionScalar.resolved {
        } else {
            diagnostics.append(Diagnostic(
                .extendsProblem, at: at, "extends: expected '\(basePath)' to declare version: 1, found \(baseRoot["version"] == nil ? "no version" : "another version")"))
            return root
        }
        let resolvedBase = resolve(baseRoot, path: basePath, chain: chain + [(basePath, canonical)])
        return Self.merge(base: resolvedBase ?? baseRoot, override: root)
    }

    /// The tree of an extended file, parsed once per run with a cache.
    private func parse(_ file: PolicyRoot.ReadFile, path: String) throws(PolicyLoadError) -> YAMLNode? {
        let limits = self.limits
        guard let cache else { return try YAMLParser.parse(bytes: file.bytes, path: path, limits: limits) }
        let key = PolicyLoadCache.Key(canonicalPath: file.canonicalPath, spelling: path, limits: limits)
        return try cache.tree(key, bytes: file.bytes) {
            do throws(PolicyLoadError) {
                return .success(try YAMLParser.parse(bytes: file.bytes, path: path, limits: limits))
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// What a node is, without quoting it: the extended file may be
    /// anything until it is known to be a policy.
    static func shape(_ node: YAMLNode) -> String {
        switch node {
        case .scalar: "a single value"
        case .mapping(let entries, _): entries.isEmpty ? "an empty mapping" : "a mapping"
        case .sequence(let items, _): items.isEmpty ? "an empty list" : "a list"
        }
    }

    /// `override` on top of `base`: mappings merge key by key (recursively),
    /// everything else is replaced. Keys keep the base's order, new keys
    /// follow.
    static func merge(base: YAMLNode, override: YAMLNode) -> YAMLNode {
        guard case .mapping(var merged, _) = base, case .mapping(let overrides, let location) = override else {
            return override
        }
        var index: [String: Int] = [:]
        for (position, entry) in merged.enumerated() { index[entry.key.value] = position }
        for entry in overrides {
            if let position = index[entry.key.value] {
                merged[position] = (entry.key, merge(base: merged[position].value, override: entry.value))
            } else {
                index[entry.key.value] = merged.count
                merged.append(entry)
            }
        }
        return .mapping(merged, location)
    }
}
