import Foundation
import PropertyBased
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyYAML
import Testing

/// `import --output DIR` names each file after its candidate: whatever the
/// names a foreign file holds, the files written have distinct names (also
/// ignoring case), each a policy name the loader takes, none hidden, and
/// each loads back as the policy it names; or, when two names would share
/// a file, the import is an error naming both.
@Suite("Imported file names")
struct ImportFileNamePropertyTests {
    /// Pieces names are made of: the characters sanitising keeps, removes
    /// or collapses, case variants, bidi and terminal controls, and long
    /// runs that reach the 128-character cut.
    static let pieces = [
        "a", "Z", "9", "-", "_", ".", "..", "/", " ", "é", "ß", "\u{202E}", "\u{200F}", "\u{2066}", "*", "#", ":",
        "tests", ".tests", "default", "DEFAULT", "\u{1B}[31m", "\u{7F}", "\u{85}", "\u{FEFF}", "日本",
        String(repeating: "x", count: 60), String(repeating: "Y", count: 127),
    ]

    /// The profile names of one AWS shared config file, drawn from `seed`.
    static func names(seed: Int) -> [String] {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
        let count = Int.random(in: 1...7, using: &random)
        var names: [String] = []
        for _ in 0..<count {
            var name = ""
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                name += pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }
            // Sometimes a name that differs from an earlier one only after
            // the cut, or only in case.
            if let earlier = names.last, Int.random(in: 0..<5, using: &random) == 0 {
                name = Bool.random(using: &random)
                    ? String(repeating: "p", count: 128) + earlier + name
                    : earlier.uppercased()
            }
            names.append(name)
        }
        return names
    }

    static func config(_ names: [String]) -> String {
        names.enumerated().map { index, name in
            "[profile \(name)]\nretry_mode = standard\nmax_attempts = \(index % 5 + 2)\n"
        }.joined(separator: "\n")
    }

    @Test("the written names are distinct, at most 128 characters, never hidden, and each loads back; or the clash is named")
    func namesAreSafeAndLoad() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = try PolicyRoot(directory: directory.path)
        var written = 0
        var clashes = 0
        await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000)) { seed in
            let file = ForeignFile(bytes: Array(Self.config(Self.names(seed: seed)).utf8), path: "config")
            let candidates: [ImportCandidate]
            do {
                candidates = try Importer.candidates(file, from: .awsConfig)
            } catch {
                Issue.record("seed \(seed): the generated file does not read: \(error)")
                return
            }
            do {
                let (policies, errors) = try Importer.importEvery(file, from: .awsConfig)
                #expect(errors.isEmpty, "seed \(seed): \(errors)")
                #expect(policies.count == candidates.count, "seed \(seed)")
                let names = policies.map(\.name)
                #expect(Set(names.map { $0.lowercased() }).count == names.count, "seed \(seed): \(names)")
                let folder = directory.appendingPathComponent(UUID().uuidString).path
                for (policy, candidate) in zip(policies, candidates) {
                    let name = policy.name
                    #expect(PolicyBounds.isName(name), "seed \(seed): \(name)")
                    #expect(!name.hasPrefix(".") && !name.hasPrefix("-"), "seed \(seed): \(name)")
                    #expect(!PolicyFileName.isTestFile(name + ".yaml"), "seed \(seed): \(name) is named as a test file")
                    // Renamed exactly when no letter, digit or `_` is left
                    // (dots and dashes alone are trimmed away).
                    let renamed = policy.warnings.contains { $0.feature == "name" }
                    let keepable = candidate.name == "*" || candidate.name.unicodeScalars.contains {
                        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                    }
                    #expect(renamed == !keepable, "seed \(seed): \(candidate.name) renamed \(renamed)")
                    let path = folder + "/" + name + ".yaml"
                    do {
                        try root.write(policyFile(policy), to: path, replacing: false)
                        let loaded = try PolicyLoader(root: root).loadPolicy(atPath: path)
                        #expect(loaded.name == name, "seed \(seed)")
                        written += 1
                    } catch {
                        Issue.record("seed \(seed): \(name) does not write and load back: \(error)")
                    }
                }
                let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                #expect(files.count == policies.count, "seed \(seed): a file was written over another: \(files)")
            } catch let error as InteropError {
                clashes += 1
                #expect(!error.diagnostics.isEmpty && error.diagnostics.allSatisfy { $0.id == InteropRule.fileName.id }, "seed \(seed): \(error)")
                let quoted = candidates.map { QuotedText.doubleQuoted($0.name) }
                for diagnostic in error.diagnostics {
                    #expect(quoted.filter { diagnostic.message.contains($0) }.count >= 2, "seed \(seed): \(diagnostic.message)")
                }
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
        // Both outcomes were exercised, or the property proves little.
        #expect(written > 100 && clashes > 5, "written \(written), clashes \(clashes)")
    }

    @Test("a name with nothing a policy name may hold is named after its kind and position, with a warning")
    func fallbackName() throws {
        let text = Self.config(["\u{202E}", "default", " / ", "..."])
        let file = ForeignFile(bytes: Array(text.utf8), path: "config")
        let (policies, _) = try Importer.importEvery(file, from: .awsConfig)
        #expect(policies.map(\.name) == ["profile-1", "default", "profile-3", "profile-4"])
        #expect(policies[0].warnings.first?.feature == "name")
        #expect(policies[0].warnings.first?.location.line == 1)
        #expect(policies[1].warnings.allSatisfy { $0.feature != "name" })
        let one = try Importer.importPolicy(file, from: .awsConfig, selection: "\u{202E}")
        #expect(one.name == "profile-1" && one.warnings.first?.feature == "name")
    }

    @Test("names keep their readable characters: no leading dot, no test-file ending, cut at 128")
    func sanitising() throws {
        let long = String(repeating: "n", count: 200)
        let text = Self.config([".hidden", "..", "api.tests", "a/b c", long, "-opt"])
        let file = ForeignFile(bytes: Array(text.utf8), path: "config")
        let (policies, _) = try Importer.importEvery(file, from: .awsConfig)
        #expect(policies.map(\.name) == ["hidden", "profile-2", "api-tests", "a-b-c", String(repeating: "n", count: 128), "opt"])
    }
}
