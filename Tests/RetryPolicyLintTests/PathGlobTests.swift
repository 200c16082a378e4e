import PropertyBased
import RetryPolicyLint
import Testing

@Suite("include:/exclude: path patterns")
struct PathGlobTests {
    @Test("*, ? and ** match as documented; a pattern covers what is under a directory it matches", arguments: [
        ("policies/*.yaml", "policies/a.yaml", true),
        ("policies/*.yaml", "policies/sub/a.yaml", false),
        ("policies/**/*.yaml", "policies/a.yaml", true),
        ("policies/**/*.yaml", "policies/x/y/a.yaml", true),
        ("**/testdata", "a/b/testdata/p.yaml", true),
        ("**/testdata", "testdata/p.yaml", true),
        ("vendor", "vendor/lib/p.yaml", true),
        ("vendor", "vendored/p.yaml", false),
        ("p?.yaml", "p1.yaml", true),
        ("p?.yaml", "p12.yaml", false),
        ("./a/*", "a/b.yaml", true),
        ("a//b", "a/b", true),
        ("*", "anything/at/all.yaml", true),
        ("**", "x.yaml", true),
        ("s*/*/t*.yml", "services/old/twin.yml", true),
        ("s*/*/t*.yml", "services/twin.yml", false),
        ("a/x**y.yaml", "a/xzzy.yaml", true),
        ("a/x**y.yaml", "a/b/y.yaml", false),
    ])
    func matching(pattern: String, path: String, expected: Bool) throws {
        #expect(try PathGlob(pattern).matches(path) == expected)
    }

    @Test("a bad pattern says why", arguments: [
        ("", "empty"), ("/etc/*.yaml", "absolute"), ("../x", "'..'"), ("a/../b", "'..'"),
        ("[ab].yaml", "'['"), ("{a,b}.yaml", "'{'"), ("!x", "'!'"), (".", "names no path"),
    ])
    func problems(pattern: String, says: String) {
        #expect {
            _ = try PathGlob(pattern)
        } throws: { error in
            (error as? PathGlob.Problem)?.message.contains(says) == true
        }
    }

    @Test("a pattern longer than the limit is refused")
    func tooLong() {
        #expect(throws: PathGlob.Problem.self) { try PathGlob(String(repeating: "a", count: PathGlob.maximumLength + 1)) }
    }

    @Test("hostile patterns against long paths finish: matching is a table, not backtracking")
    func noBacktracking() throws {
        let pattern = try PathGlob(Array(repeating: "**/*a*a*a*a*a*a*a*a*a*a*a*a*b", count: 30).joined(separator: "/"))
        let path = Array(repeating: String(repeating: "a", count: 200), count: 40).joined(separator: "/")
        #expect(!pattern.matches(path))
    }

    @Test("property: a path matches itself, its directories, and itself with components replaced by * or **")
    func generalised() async {
        let component = Gen.int(in: 0...4).array(of: 1...6).map { $0.map { "ab.-_"[String.Index(utf16Offset: $0, in: "ab.-_")] } }
            .map { String($0) }
        let paths = component.array(of: 1...5)
        await propertyCheck(count: 300, input: paths, Gen.int(in: 0...1_000_000)) { names, seed in
            let names = names.map { $0 == "." || $0 == ".." ? "x" + $0 : $0 }
            let path = names.joined(separator: "/")
            var generator = SplitMix(seed: UInt64(seed))
            var pattern: [String] = []
            for name in names {
                switch generator.next() % 4 {
                case 0: pattern.append("*")
                case 1: pattern.append("**")
                case 2: pattern.append(String(name.prefix(1)) + "*")
                default: pattern.append(name)
                }
            }
            #expect((try? PathGlob(pattern.joined(separator: "/")).matches(path)) == true, "\(pattern) \(path)")
            #expect((try? PathGlob(path).matches(path + "/below.yaml")) == true)
            #expect((try? PathGlob(path).matches(path + "x")) == false)
        }
    }
}

/// A small seeded generator, so a failing case can be replayed.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
