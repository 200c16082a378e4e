import RetryPolicyCore

extension PolicyRoot {
    /// For a path that names nothing: the entry beside it whose name is a
    /// plausible typo of its name (`policies/tmbd.yaml` → `policies/tmdb.yaml`),
    /// spelt as the user spelt the directory. Only a directory inside the
    /// root is listed, and dotfiles are never offered; `nil` when the
    /// directory does not exist either, or nothing in it is close.
    package func siblingSuggestion(forMissing path: String) -> String? {
        guard !path.isEmpty, !path.hasSuffix("/") else { return nil }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        guard case .success(let located) = locate(directory.isEmpty ? "." : directory), located.kind == .directory,
            let names = fileSystem.names(inDirectoryAt: located.canonicalPath)
        else { return nil }
        return Suggestion.closest(to: name, among: names.filter { !$0.hasPrefix(".") && $0 != name }).map { directory + $0 }
    }

    /// `PATH: no such file or directory`, with the sibling it probably
    /// meant: `; did you mean policies/tmdb.yaml?`.
    package func noSuchFileMessage(_ path: String, what: String = "no such file or directory") -> String {
        var message = "\(path): \(what)"
        if let sibling = siblingSuggestion(forMissing: path) { message += "; did you mean \(sibling)?" }
        return message
    }
}
