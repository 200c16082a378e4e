import PropertyBased
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Invariants of the loader over generated input.
@Suite struct LoaderPropertyTests {
    static let jitters = Backoff.Jitter.allCases
    static let actions = Rule.Action.allCases
    static let transports = TransportFailure.allCases

    /// Whatever numbers a policy states, loading its text gives exactly
    /// those numbers back.
    @Test func writtenValuesLoadBackExactly() async {
        await propertyCheck(
            count: 200,
            input: Gen.int(in: 1...100), Gen.int(in: 0...600_000), Gen.int(in: 0...600_000), Gen.int(in: 0...40),
            Gen.int(in: 0...3), Gen.int(in: 100...599).array(of: 1...6), Gen.int(in: 0...9).array(of: 0...4), Gen.int(in: 0...2)
        ) { attempts, initialMs, extraMs, multiplierTenths, jitterIndex, codes, transportIndexes, actionIndex in
            let action = Self.actions[actionIndex]
            let transports = Set(transportIndexes.map { Self.transports[$0] })
            let maxMs = initialMs + extraMs
            var text = """
                version: 1
                name: generated
                attempts: \(attempts)
                backoff:
                  initial: \(initialMs)ms
                  max: \(DurationText.format(.milliseconds(maxMs)))
                  multiplier: \(Double(multiplierTenths) / 10)
                  jitter: \(Self.jitters[jitterIndex])
                rules:
                  - status: [\(codes.map(String.init).joined(separator: ", "))]

                """
            if !transports.isEmpty {
                text += "    transport: [\(transports.map(\.rawValue).sorted().joined(separator: ", "))]\n"
            }
            text += "    error: status_5xx\n    action: \(action)\n"
            do {
                let policy = try PolicyLoader().loadPolicy(yaml: text, path: "generated.yaml")
                #expect(policy.attempts == attempts)
                #expect(policy.backoff.initial == .milliseconds(initialMs))
                #expect(policy.backoff.max == .milliseconds(maxMs))
                #expect(policy.backoff.multiplier == Double(multiplierTenths) / 10)
                #expect(policy.backoff.jitter == Self.jitters[jitterIndex])
                #expect(policy.rules.count == 1)
                #expect(policy.rules[0].statuses == codes.map(StatusPattern.code))
                #expect(policy.rules[0].transports == transports)
                #expect(policy.rules[0].action == action)
            } catch {
                Issue.record("generated policy rejected:\n\(text)\n\(error)")
            }
        }
    }

    /// Bytes that matter to YAML, UTF-8 and the loader.
    static let interestingBytes: [UInt8] = Array(":-[]{}&*!|>\"'#,?%@`\n\t 0123456789xasm.".utf8) + [0, 0xC3, 0xFF, 0x80]

    /// Any corruption of a real policy ends in a policy or in located
    /// diagnostics inside the file: never a crash, never an empty failure.
    @Test func corruptedPoliciesFailCleanlyWithLocatedDiagnostics() async throws {
        let original = Array(try RepositoryFiles.text("policies/mobile-client.yaml").utf8)
        let lineCount = original.filter { $0 == UInt8(ascii: "\n") }.count + 1
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...(original.count - 1)).array(of: 1...8),
            Gen.int(in: 0...(Self.interestingBytes.count - 1)).array(of: 8...8), Gen.int(in: 0...2).array(of: 8...8)
        ) { positions, byteIndexes, operations in
            var bytes = original
            for (offset, position) in positions.enumerated() where position < bytes.count {
                let byte = Self.interestingBytes[byteIndexes[offset]]
                switch operations[offset] {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            do throws(PolicyLoadError) {
                _ = try PolicyLoader().loadDocument(bytes: bytes, path: "mutated.yaml")
            } catch {
                #expect(!error.diagnostics.isEmpty)
                for diagnostic in error.diagnostics {
                    #expect(diagnostic.location.line >= 1 && diagnostic.location.line <= lineCount + 8)
                    #expect(diagnostic.location.column >= 1)
                    #expect(diagnostic.id?.hasPrefix("RP0") == true)
                    #expect(!diagnostic.message.isEmpty)
                }
            }
        }
    }
}
