import Foundation
import RetryPolicyInterop
import Testing

/// The importer fuzz target (Fuzz/Sources/FuzzImport) runs every format
/// the registry lists; each starts from its own seed corpus.
@Suite("Importer fuzz corpus")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus/Import")

    @Test("every registered format has seed inputs, and every seed directory is a registered format")
    func oneSeedDirectoryPerFormat() throws {
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(directories == InteropFormat.allCases.map(\.rawValue).sorted())
        for format in InteropFormat.allCases {
            let seeds = (try? FileManager.default.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent(format.rawValue).path)) ?? []
            #expect(!seeds.isEmpty, "no seed inputs for \(format)")
        }
    }
}
