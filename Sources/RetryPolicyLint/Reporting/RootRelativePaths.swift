import RetryPolicyCore
import RetryPolicyYAML

/// Names files from the root (the enclosing git work tree, or `--root`)
/// rather than from the working directory, so that a report made in
/// `sub/dir` says `sub/dir/bad.yaml`: the path GitHub's annotations and
/// code scanning resolve against the checkout, and the same path whichever
/// directory a CI step runs in.
///
/// The directory part of a path is resolved through the root (its links
/// followed, `..` applied), the file's own name kept, so that a symbolic
/// link is named as itself. A path that cannot be resolved inside the
/// root, and standard input's `<stdin>`, are left as they are.
package struct RootRelativePaths: Sendable {
    package var root: PolicyRoot

    package init(root: PolicyRoot) { self.root = root }

    /// `path` (absolute, or relative to the working directory) relative
    /// to the root; `.` components and `..` are resolved.
    package func relative(_ path: String) -> String {
        guard path != PolicyRoot.standardInputName, !path.isEmpty else { return path }
        guard let canonical = canonicalDirectoryPath(path), root.contains(canonicalPath: canonical) else { return path }
        let prefix = root.path == "/" ? "/" : root.path + "/"
        guard canonical.hasPrefix(prefix) else { return path }
        let inside = String(canonical.dropFirst(prefix.count))
        return inside.isEmpty ? path : inside
    }

    /// Where a walked or named file lies: its directory resolved inside
    /// the root, its own name as written (`.` and `..` resolved too).
    package func canonicalDirectoryPath(_ path: String) -> String? {
        let directory: String
        let name: Substring
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
            name = path[path.index(after: slash)...]
        } else {
            directory = "."
            name = Substring(path)
        }
        if name.isEmpty || name == "." || name == ".." {
            guard case .success(let located) = root.locate(path) else { return nil }
            return located.canonicalPath
        }
        guard case .success(let located) = root.locate(directory), located.kind == .directory else { return nil }
        return (located.canonicalPath == "/" ? "" : located.canonicalPath) + "/" + name
    }

    /// A path a report names, as the root reads it: a root-relative path
    /// joined to the root, anything else unchanged.
    package func readablePath(_ reported: String) -> String {
        guard !reported.hasPrefix("/"), reported != PolicyRoot.standardInputName else { return reported }
        return root.path == "/" ? "/" + reported : root.path + "/" + reported
    }
}
