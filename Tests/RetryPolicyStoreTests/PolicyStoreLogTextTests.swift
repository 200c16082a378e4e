import Foundation
import Logging
import RetryPolicyCore
import RetryPolicyStore
import Testing

/// A policy directory is written by others (a deploy job, a config
/// sidecar): its file names, policy names and what its diagnostics quote
/// reach the service's logs as metadata, which log handlers print as they
/// are.
@Suite("PolicyStore log metadata shows text from files safely")
struct PolicyStoreLogTextTests {
    /// Remembers every record's metadata, rendered as a handler prints it.
    final class MetadataCapture: LogHandler, @unchecked Sendable {
        struct Record: Sendable {
            var message: String
            var metadata: [String: String]
            var values: Logger.Metadata
        }

        private let storage = LockedValue<[Record]>([])
        var records: [Record] { storage.withLock { $0 } }
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let values = event.metadata ?? [:]
            let record = Record(message: "\(event.message)", metadata: values.mapValues { "\($0)" }, values: values)
            storage.withLock { $0.append(record) }
        }
    }

    static let hostile = "p\u{1B}]0;owned\u{7}\r\n::error file=x::forged\u{202E}"

    @Test("a file name, a policy name and a diagnostic quoting the file reach log metadata escaped")
    func metadataIsEscaped() throws {
        let directory = NSTemporaryDirectory() + "policy-store-log-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Refused by the line loader, which quotes the path and the line.
        try "\(Self.hostile): 1\n".write(toFile: directory + "/\(Self.hostile).yaml", atomically: true, encoding: .utf8)
        try "name: good\u{1B}[31m\u{2066}\nattempts: 2\n".write(toFile: directory + "/good.yaml", atomically: true, encoding: .utf8)

        let capture = MetadataCapture()
        let store = PolicyStore(directory: directory, loader: lineLoader, logger: Logger(label: "test") { _ in capture })
        #expect(store.snapshot.deciders["good\u{1B}[31m\u{2066}"] != nil)
        #expect(store.snapshot.problems.count == 1)

        let records = capture.records
        let notLoaded = try #require(records.first { $0.message.hasPrefix("policy file not loaded") })
        let path = try #require(notLoaded.metadata["path"])
        #expect(path.hasSuffix("/p\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged\\u{202E}.yaml"), "\(path)")
        let diagnostics = try #require(notLoaded.metadata["diagnostics"])
        #expect(diagnostics.contains("found 'p\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged\\u{202E}: 1'"), "\(diagnostics)")
        let reloaded = try #require(records.first { $0.message == "policies reloaded" })
        guard case .array(let added)? = reloaded.values["added"] else {
            Issue.record("added is not a list: \(reloaded.metadata)")
            return
        }
        #expect(added.map(\.description) == ["good\\u{1B}[31m\\u{2066}"])

        #expect(!records.isEmpty)
        for record in records {
            for (key, value) in record.metadata {
                #expect(!value.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }), "\(key): \(value.debugDescription)")
            }
        }
    }
}
