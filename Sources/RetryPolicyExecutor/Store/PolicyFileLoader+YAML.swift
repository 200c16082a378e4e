import RetryPolicyCore
import RetryPolicyYAML

extension PolicyFileLoader {
    /// The standard loader: policy files in the documented YAML format,
    /// with `extends` resolved; stack files are skipped. A file that does
    /// not load reports every diagnostic, each `file:line:column: ...`.
    public static func yaml(_ loader: PolicyLoader = PolicyLoader()) -> PolicyFileLoader {
        PolicyFileLoader { path in
            do throws(PolicyLoadError) {
                switch try loader.loadDocument(atPath: path) {
                case .policy(let policy): return .success(policy)
                case .stack: return .success(nil)
                }
            } catch {
                return .failure(PolicyFileProblem(path: path, diagnostics: error.diagnostics.map(\.description)))
            }
        }
    }
}
