import RetryPolicyCore
import RetryPolicyYAML

extension PolicyFileLoader {
    /// The standard loader: policy files in the documented YAML format,
    /// with `extends` resolved; stack files are skipped. A file that does
    /// not load reports every diagnostic, each `file:line:column: ...`.
    ///
    /// Unless `loader` has a root of its own, each file is confined to its
    /// directory (see `PolicyRoot`): it may extend its neighbours, but a
    /// path or link that leads out of the directory, or to a special file,
    /// is a problem of that file and is never opened.
    public static func yaml(_ loader: PolicyLoader = PolicyLoader()) -> PolicyFileLoader {
        PolicyFileLoader { path in
            do throws(PolicyLoadError) {
                var confined = loader
                if loader.root.path == "/" {
                    let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
                    do {
                        confined = PolicyLoader(limits: loader.limits, root: try PolicyRoot(directory: directory.isEmpty ? "/" : directory))
                    } catch {
                        return .failure(PolicyFileProblem(path: path, message: "\(error)"))
                    }
                }
                switch try confined.loadDocument(atPath: path) {
                case .policy(let policy): return .success(policy)
                case .stack: return .success(nil)
                }
            } catch {
                return .failure(PolicyFileProblem(path: path, diagnostics: error.diagnostics))
            }
        }
    }
}
