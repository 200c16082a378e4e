import Foundation
import Testing

@Suite("pre-commit hooks", .serialized)
struct PreCommitHookTests {
    /// Each hook of `.pre-commit-hooks.yaml` as pre-commit sees it: its id,
    /// entry, and the repository files its `files`/`exclude` patterns select
    /// (with Python's `re.search`, as pre-commit matches them).
    static func hooks() throws -> [(id: String, entry: String, language: String, files: [String])] {
        let script = """
            import json, os, re, sys, yaml
            root = sys.argv[1]
            hooks = yaml.safe_load(open(os.path.join(root, ".pre-commit-hooks.yaml")))
            paths = []
            for directory, names, files in os.walk(root):
                names[:] = [n for n in names if not n.startswith(".")]
                paths += [os.path.relpath(os.path.join(directory, f), root) for f in files]
            out = []
            for hook in hooks:
                selected = sorted(p for p in paths
                                  if re.search(hook.get("files", ""), p)
                                  and not (hook.get("exclude") and re.search(hook["exclude"], p)))
                out.append({"id": hook["id"], "entry": hook["entry"], "language": hook["language"], "files": selected})
            print(json.dumps(out))
            """
        let result = try python(script, arguments: [CLI.packageRoot.path])
        let data = Data(result.output.utf8)
        let decoded = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "\(result.output)")
        return decoded.map {
            ($0["id"] as? String ?? "", $0["entry"] as? String ?? "", $0["language"] as? String ?? "", $0["files"] as? [String] ?? [])
        }
    }

    @Test("the hooks lint and test the shipped policies, and pass on them as pre-commit would run them")
    func hooksRunClean() throws {
        let hooks = try Self.hooks()
        #expect(hooks.map(\.id) == [
            "retry-policy-lint", "retry-policy-test", "retry-policy-lint-from-source", "retry-policy-test-from-source",
        ])
        for hook in hooks {
            // The plain hooks run an installed binary; the ones that build
            // the package say so in their id.
            #expect(hook.language == (hook.id.hasSuffix("-from-source") ? "swift" : "system"), "\(hook.id)")
            #expect(hook.files.contains("policies/tmdb.yaml"), "\(hook.id) selects \(hook.files)")
            let entry = hook.entry.split(separator: " ").map(String.init)
            #expect(entry.first == "retry-policy")
            let result = try CLI.run(Array(entry.dropFirst()) + hook.files, in: CLI.packageRoot)
            #expect(result.status == 0, "\(hook.id): \(result)")
        }
        for lint in hooks where lint.id.hasPrefix("retry-policy-lint") {
            #expect(!lint.files.contains { $0.hasSuffix(".tests.yaml") }, "\(lint.id) leaves test files to the test hook")
            #expect(!lint.files.contains { $0.hasPrefix("docs/") || $0.hasPrefix("Tests/") })
        }
        // A variant selects what its plain hook selects.
        for hook in hooks where hook.id.hasSuffix("-from-source") {
            let plain = hooks.first { $0.id + "-from-source" == hook.id }
            #expect(plain?.entry == hook.entry && plain?.files == hook.files, "\(hook.id)")
        }
    }
}
