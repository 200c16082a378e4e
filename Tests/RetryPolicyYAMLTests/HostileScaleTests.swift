import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Hostile files too big to commit, written at test time: a 50 MB file,
/// rules lists of 100,000 entries, and 10,000-deep nesting in both YAML
/// styles. Each must be refused with a located, explained error, within a
/// time bound and without holding memory in proportion to the attack.
@Suite("Hostile policy files at scale", .serialized)
struct HostileScaleTests {
    /// Debug builds on a shared 2-core machine; real runs take milliseconds
    /// to a few hundred milliseconds, and an expansion or a quadratic
    /// algorithm takes minutes.
    static let timeBound: Duration = .seconds(10)
    /// Peak resident memory may grow by at most this much while one file
    /// is refused.
    static let memoryBoundBytes = 256 << 20

    /// The process's peak resident set, in bytes.
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    /// Loads `text` (from memory, or from a temporary file when `viaFile`),
    /// expecting a refusal within the time and memory bounds; returns the
    /// diagnostics.
    static func refusal(of text: String, named name: String, viaFile: Bool = false, limits: YAMLLimits = .default)
        throws -> [Diagnostic]
    {
        var path = "\(name).yaml"
        if viaFile {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).yaml").path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
        defer { if viaFile { try? FileManager.default.removeItem(atPath: path) } }
        let peakBefore = peakResidentBytes()
        var diagnostics: [Diagnostic] = []
        let elapsed = ContinuousClock().measure {
            do throws(PolicyLoadError) {
                let loader = PolicyLoader(limits: limits)
                _ = viaFile ? try loader.loadDocument(atPath: path) : try loader.loadDocument(yaml: text, path: path)
            } catch {
                diagnostics = error.diagnostics
            }
        }
        let growth = peakResidentBytes() - peakBefore
        #expect(elapsed < timeBound, "\(name) took \(elapsed)")
        #expect(growth < memoryBoundBytes, "\(name) grew the peak resident set by \(growth >> 20) MiB")
        #expect(!diagnostics.isEmpty, "\(name) loaded")
        for diagnostic in diagnostics {
            #expect(diagnostic.severity == .error)
            #expect(diagnostic.location.line >= 1 && diagnostic.location.column >= 1)
        }
        return diagnostics
    }

    static let header = "version: 1\nname: hostile\nattempts: 3\n"

    @Test("A 50 MB policy file is refused before it is read")
    func fiftyMegabyteFile() throws {
        let text = Self.header + "description: \"" + String(repeating: "retry ", count: 50_000_000 / 6) + "\"\n"
        #expect(text.utf8.count > 50_000_000)
        let diagnostics = try Self.refusal(of: text, named: "fifty-megabytes", viaFile: true)
        #expect(diagnostics.map(\.id) == ["RP003"])
        #expect(diagnostics.first?.message.contains("at most 1048576 bytes") == true)
    }

    @Test("A 50 MB policy text handed over in memory is refused")
    func fiftyMegabyteText() throws {
        let text = Self.header + "rules:\n" + String(repeating: "  - {status: 503, error: status_5xx, action: retry}\n", count: 1_000_000)
        let diagnostics = try Self.refusal(of: text, named: "fifty-megabytes-in-memory")
        #expect(diagnostics.map(\.id) == ["RP003"])
        #expect(diagnostics.first?.location.line == 1)
    }

    @Test("100,000 realistic rules are refused by the size limit")
    func hundredThousandRules() throws {
        let text = Self.header + "rules:\n" + String(repeating: "  - status: 503\n    error: status_5xx\n    action: retry\n", count: 100_000)
        let diagnostics = try Self.refusal(of: text, named: "hundred-thousand-rules")
        #expect(diagnostics.map(\.id) == ["RP003"])
        #expect(diagnostics.first?.message.contains("bytes") == true)
    }

    @Test("100,000 compact rules fit the size limit and are refused by the node limit")
    func hundredThousandCompactRules() throws {
        let text = Self.header + "rules: [" + Array(repeating: "{}", count: 100_000).joined(separator: ",") + "]\n"
        #expect(text.utf8.count < YAMLLimits.default.maxBytes)
        let diagnostics = try Self.refusal(of: text, named: "hundred-thousand-compact-rules")
        #expect(diagnostics.map(\.id) == ["RP003"])
        #expect(diagnostics.first?.message.contains("YAML nodes") == true)
        #expect(diagnostics.first?.location.line == 4)
    }

    /// With the limits raised far past any real file, a 100,000-rule policy
    /// either loads or is refused, in time linear enough to stay bounded:
    /// no check may compare every rule with every other.
    @Test("100,000 rules under raised limits stay within the time bound")
    func hundredThousandRulesUnderRaisedLimits() {
        let text = Self.header + "rules:\n"
            + (0..<100_000).map { "  - {status: \(100 + $0 % 500), error: status_5xx, action: \($0 % 2 == 0 ? "retry" : "stop")}\n" }.joined()
        let limits = YAMLLimits(maxBytes: 64 << 20, maxDepth: 64, maxNodes: 10_000_000)
        var rules = -1
        let elapsed = ContinuousClock().measure {
            if case .policy(let policy)? = try? PolicyLoader(limits: limits).loadDocument(yaml: text, path: "wide.yaml") {
                rules = policy.rules.count
            }
        }
        #expect(elapsed < Self.timeBound * 3, "100,000 rules took \(elapsed)")
        #expect(rules == 100_000 || rules == -1)
    }

    @Test("10,000-deep nesting is refused at the depth limit", arguments: ["flow", "block"])
    func tenThousandDeep(style: String) throws {
        let depth = 10_000
        let text: String
        if style == "flow" {
            text = Self.header + "rules: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        } else {
            // Compact nested block sequences: `- - - ... - x`.
            text = Self.header + "rules:\n  " + String(repeating: "- ", count: depth) + "x\n"
        }
        let diagnostics = try Self.refusal(of: text, named: "deep-\(style)")
        #expect(diagnostics.map(\.id) == ["RP003"])
        #expect(diagnostics.first?.message.contains("nesting at most 64 levels deep") == true, "\(diagnostics)")
    }

    @Test("An alias bomb written at test time expands nothing")
    func generatedAliasBomb() throws {
        var text = Self.header + "description: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...30 {
            text += "k\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let diagnostics = try Self.refusal(of: text, named: "alias-bomb-30")
        #expect(diagnostics.allSatisfy { $0.id == "RP004" })
        #expect(diagnostics.count < 20, "one message per alias would be its own flood: \(diagnostics.count)")
    }
}
