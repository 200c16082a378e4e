/// How policy files and their test files are named: `tmdb.yaml` (or
/// `.yml`) and `tmdb.tests.yaml` (or `.tests.yml`) beside it.
package enum PolicyFileName {
    /// The extensions of a policy file.
    package static let extensions = [".yaml", ".yml"]

    /// The endings of a policy test file, in the order they are looked for.
    package static let testSuffixes = [".tests.yaml", ".tests.yml"]

    /// Whether `name` ends in `.yaml` or `.yml`.
    package static func isYAML(_ name: String) -> Bool {
        extensions.contains { name.hasSuffix($0) }
    }

    /// Whether `name` is a policy test file (`*.tests.yaml`, `*.tests.yml`).
    package static func isTestFile(_ name: String) -> Bool {
        testSuffixes.contains { name.hasSuffix($0) }
    }

    /// `tmdb` for `tmdb.tests.yaml`; `nil` when `name` is not a test file.
    package static func testedBase(of name: String) -> String? {
        testSuffixes.first { name.hasSuffix($0) }.map { String(name.dropLast($0.count)) }
    }

    /// `tmdb.tests.yaml` and `tmdb.tests.yml` for `tmdb.yaml`, in the order
    /// they are looked for; none when `path` is not a policy file.
    package static func testFiles(besidePolicy path: String) -> [String] {
        guard let ext = extensions.first(where: { path.hasSuffix($0) }) else { return [] }
        let base = path.dropLast(ext.count)
        return testSuffixes.map { base + $0 }
    }
}
