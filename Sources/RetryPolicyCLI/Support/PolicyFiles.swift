import RetryPolicyCommandSupport
import RetryPolicyCore
import RetryPolicyYAML

/// Finding the test files the subcommands work on, all through a
/// ``PolicyRoot``.
extension PolicyFiles {
    /// The policy test files under `paths` (`*.tests.yaml`, `*.tests.yml`);
    /// a policy file given directly (as pre-commit does) stands for its
    /// tests beside it.
    static func testFiles(in paths: [String], root: PolicyRoot) throws(CommandFailure) -> [PolicyRoot.FoundFile] {
        var result: [PolicyRoot.FoundFile] = []
        for path in paths {
            if path == "-" {
                // A test file on standard input; its `policy:` is relative to
                // the working directory.
                result.append(PolicyRoot.FoundFile(path: "-"))
                continue
            }
            let found: [PolicyRoot.FoundFile]
            do {
                found = try root.files(under: [path]) { PolicyFileName.isYAML($0) }
            } catch {
                throw CommandFailure(error.description)
            }
            let isDirectory = found.count != 1 || found[0].path != path
            for file in found {
                if PolicyFileName.isTestFile(file.path) {
                    if !result.contains(file) { result.append(file) }
                } else if !isDirectory, let sibling = testFile(besidePolicy: file.path, root: root),
                    !result.contains(where: { $0.path == sibling })
                {
                    result.append(PolicyRoot.FoundFile(path: sibling))
                }
            }
        }
        return result
    }

    /// `tmdb.tests.yaml` beside `tmdb.yaml`, when it exists.
    static func testFile(besidePolicy path: String, root: PolicyRoot) -> String? {
        PolicyFileName.testFiles(besidePolicy: path).first { root.exists($0) }
    }
}
