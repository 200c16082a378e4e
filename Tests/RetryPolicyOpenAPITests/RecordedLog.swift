import Logging
import RetryPolicyCore

/// A logger that keeps what it is told, for asserting diagnostics.
final class RecordedLog: Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    private let storage = LockedValue<[Entry]>([])

    var entries: [Entry] { storage.withLock { $0 } }

    var logger: Logger {
        Logger(label: "openapi-tests") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: RecordedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.storage.withLock {
                $0.append(Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
            }
        }
    }
}
