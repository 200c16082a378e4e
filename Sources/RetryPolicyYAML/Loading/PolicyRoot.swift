import RetryPolicyCore

/// The directory whose files policies may be read from, and the only place
/// they are read from.
///
/// Lint runs in CI on pull requests that anyone can open, so a policy must
/// not be able to make the tools read a file of the machine they run on:
/// every path (arguments, `extends`, `parity`, stack layers, settings) is
/// resolved here, symbolic links included, one component at a time, and a
/// path that leaves the root is refused before anything outside is touched,
/// not even looked up. Inside the root, files under `.git` (which may hold
/// credentials a checkout stored), special file systems (`/proc`, `/sys`,
/// `/dev`) and anything but a regular file are refused too.
///
/// ```swift
/// let root = try PolicyRoot(directory: "/srv/app/policies")
/// let policy = try PolicyLoader(root: root).loadPolicy(atPath: "/srv/app/policies/api.yaml")
/// ```
public struct PolicyRoot: Sendable {
    /// The name diagnostics give a file read from standard input (`-`).
    package static let standardInputName = "<stdin>"

    /// The root, absolute and with every symbolic link resolved.
    public let path: String
    package let fileSystem: any PolicyFileSystem
    let components: [String]
    /// The root as the caller spelt it (absolute), when that differs from
    /// ``path`` because the way to it passes through links: a path under
    /// this spelling is a path under the root.
    private(set) var spelling: [String]?

    /// The root at `directory` (relative to the working directory when not
    /// absolute), resolved through the symbolic links on its way.
    public init(directory: String, fileSystem: any PolicyFileSystem = SystemFileSystem()) throws(PolicyRootError) {
        let whole = PolicyRoot(canonicalComponents: [], fileSystem: fileSystem)
        let absolute = whole.absolute(directory)
        switch whole.resolve(absolute) {
        case .success(let found) where found.kind == .directory:
            self.init(canonicalComponents: found.components, fileSystem: fileSystem)
            let spelt = Self.split(absolute).filter { $0 != "." }
            if spelt != found.components && !spelt.contains("..") { spelling = spelt }
        case .success(let found):
            throw PolicyRootError(path: directory, reason: "it is \(found.kind), not a directory")
        case .failure(let denial):
            throw PolicyRootError(path: directory, reason: denial.reason)
        }
    }

    /// Every file of the machine but special file systems and `.git`
    /// folders: what a library caller that names its own paths gets.
    public static func wholeFileSystem(_ fileSystem: any PolicyFileSystem = SystemFileSystem()) -> PolicyRoot {
        PolicyRoot(canonicalComponents: [], fileSystem: fileSystem)
    }

    /// The root the command-line tools use when none is given: the git
    /// work tree enclosing `directory` (the nearest folder upward holding
    /// `.git`), else `directory` itself (default: the working directory).
    public static func enclosing(
        _ directory: String? = nil, fileSystem: any PolicyFileSystem = SystemFileSystem()
    ) throws(PolicyRootError) -> PolicyRoot {
        let start = try PolicyRoot(directory: directory ?? fileSystem.currentDirectory, fileSystem: fileSystem)
        var candidate = start.components
        while true {
            if fileSystem.kind(ofEntryAt: Self.join(candidate + [".git"])) != nil {
                return PolicyRoot(canonicalComponents: candidate, fileSystem: fileSystem)
            }
            if candidate.isEmpty { return start }
            candidate.removeLast()
        }
    }

    private init(canonicalComponents: [String], fileSystem: any PolicyFileSystem) {
        self.components = canonicalComponents
        self.path = Self.join(canonicalComponents)
        self.fileSystem = fileSystem
    }

    // MARK: Resolving

    /// A path resolved inside the root.
    package struct Located: Sendable, Hashable {
        /// Absolute, every link resolved.
        package var canonicalPath: String
        package var kind: FileKind
        /// Whether a symbolic link was followed on the way.
        package var throughLink: Bool
        var components: [String]
    }

    /// Why a path is not read.
    package struct Denial: Error, Sendable, Hashable {
        package enum Kind: Sendable, Hashable {
            /// Absolute, `..`, or a link leading out of the root.
            case outsideRoot
            case notFound
            case linkLoop
            /// Inside a `.git` folder.
            case gitDirectory
            /// `/proc`, `/sys` or `/dev`.
            case specialFileSystem
        }

        package var kind: Kind
        /// Where resolution stopped, for messages.
        package var detail: String

        package var reason: String {
            switch kind {
            case .outsideRoot: "a path outside the root (\(detail))"
            case .notFound: "no such file (\(detail))"
            case .linkLoop: "a loop of symbolic links (\(detail))"
            case .gitDirectory: "a path inside a .git folder, which is never read"
            case .specialFileSystem: "a path on a special file system (\(detail)), which is never read"
            }
        }
    }

    /// Most links one path may pass through, as Linux's `ELOOP` limit.
    static let maximumLinks = 40

    /// `path` (absolute, or relative to the working directory) resolved
    /// component by component; nothing outside the root is looked up.
    package func locate(_ path: String) -> Result<Located, Denial> {
        switch resolve(absolute(path)) {
        case .failure(let denial):
            return .failure(denial)
        case .success(let found):
            let inside = found.components.dropFirst(components.count)
            if inside.contains(".git") { return .failure(Denial(kind: .gitDirectory, detail: found.canonicalPath)) }
            if let first = found.components.first, first == "proc" || first == "sys" || first == "dev" {
                return .failure(Denial(kind: .specialFileSystem, detail: "/" + first))
            }
            return .success(found)
        }
    }

    /// Whether the canonical `path` lies inside the root.
    public func contains(canonicalPath path: String) -> Bool {
        let parts = Self.split(path)
        return parts.count >= components.count && Array(parts.prefix(components.count)) == components
    }

    func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : fileSystem.currentDirectory + "/" + path
    }

    private func resolve(_ absolutePath: String) -> Result<Located, Denial> {
        var resolved: [String] = []
        var kind = FileKind.directory
        var parts = Self.split(absolutePath).filter { $0 != "." }
        if let spelling, parts.count >= spelling.count, Array(parts.prefix(spelling.count)) == spelling {
            parts = components + parts.dropFirst(spelling.count)
        }
        var pending = Array(parts.reversed())
        var links = 0
        // `join(resolved)`, kept up to date instead of joined again for
        // every component.
        var resolvedPath = "/"
        func under(_ component: String) -> String { resolvedPath == "/" ? "/" + component : resolvedPath + "/" + component }
        while let component = pending.popLast() {
            if component == "." { continue }
            if component == ".." {
                guard resolved.count > components.count else {
                    return .failure(Denial(kind: .outsideRoot, detail: "'..' leaves \(path)"))
                }
                resolved.removeLast()
                resolvedPath = Self.join(resolved)
                kind = .directory
                continue
            }
            guard kind == .directory else {
                return .failure(Denial(kind: .notFound, detail: "\(Self.join(resolved)) is not a directory"))
            }
            if resolved.count < components.count {
                // Walking down to the root, whose path has no links.
                guard component == components[resolved.count] else {
                    return .failure(Denial(kind: .outsideRoot, detail: "\(under(component)) is not under \(path)"))
                }
                resolvedPath = under(component)
                resolved.append(component)
                continue
            }
            let candidate = under(component)
            guard let found = fileSystem.kind(ofEntryAt: candidate) else {
                return .failure(Denial(kind: .notFound, detail: candidate))
            }
            guard found == .symbolicLink else {
                resolved.append(component)
                resolvedPath = candidate
                kind = found
                continue
            }
            links += 1
            guard links <= Self.maximumLinks, let destination = fileSystem.destination(ofLinkAt: candidate) else {
                return .failure(Denial(kind: .linkLoop, detail: candidate))
            }
            if destination.hasPrefix("/") {
                if !components.isEmpty && !isUnderRoot(destination) {
                    return .failure(Denial(kind: .outsideRoot, detail: "\(candidate) links to \(destination)"))
                }
                resolved = []
                resolvedPath = "/"
            }
            pending.append(contentsOf: Self.split(destination).reversed())
        }
        return .success(Located(
            canonicalPath: resolvedPath, kind: kind, throughLink: links > 0, components: resolved))
    }

    /// Whether an absolute link destination starts with the root's path
    /// (lexically; the walk checks the rest).
    private func isUnderRoot(_ destination: String) -> Bool {
        let parts = Self.split(destination).filter { $0 != "." }
        return parts.count >= components.count && Array(parts.prefix(components.count)) == components
    }

    /// Split on `/` bytes, as the kernel splits a path (not on characters:
    /// a `/` followed by a combining mark is still a separator, and
    /// splitting by grapheme clusters costs more than the look-ups).
    static func split(_ path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { String(Substring($0)) }
    }

    static func join(_ components: [String]) -> String {
        "/" + components.joined(separator: "/")
    }
}

/// The root directory itself cannot be used.
public struct PolicyRootError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String { "cannot use '\(path)' as the root: \(reason)" }
}
