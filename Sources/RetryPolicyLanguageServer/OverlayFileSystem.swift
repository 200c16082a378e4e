import RetryPolicyCore
import RetryPolicyYAML

/// The file system as the editor sees it: an open document's unsaved text
/// stands in for the file at its path, so a policy that extends another
/// open policy is checked against what is typed, not what is saved.
///
/// Everything else is the system's. `PolicyRoot` still resolves every
/// path first, so the buffers change what a file holds, never which
/// files may be read. Each file read is noted in `reads`: what a document
/// depends on, to check it again when one of those changes.
struct OverlayFileSystem: PolicyFileSystem {
    let base: any PolicyFileSystem
    /// Unsaved texts by canonical path.
    let buffers: [String: [UInt8]]
    let reads: ReadLog

    init(base: any PolicyFileSystem = SystemFileSystem(), buffers: [String: [UInt8]], reads: ReadLog = ReadLog()) {
        self.base = base
        self.buffers = buffers
        self.reads = reads
    }

    var currentDirectory: String { base.currentDirectory }

    func kind(ofEntryAt path: String) -> FileKind? {
        if buffers[path] != nil { return .regular }
        return base.kind(ofEntryAt: path)
    }

    func destination(ofLinkAt path: String) -> String? {
        buffers[path] != nil ? nil : base.destination(ofLinkAt: path)
    }

    func names(inDirectoryAt path: String) -> [String]? {
        let prefix = path == "/" ? "/" : path + "/"
        let unsaved = buffers.keys.compactMap { key -> String? in
            guard key.hasPrefix(prefix) else { return nil }
            let name = key.dropFirst(prefix.count)
            return name.contains("/") ? nil : String(name)
        }
        guard let listed = base.names(inDirectoryAt: path) else { return unsaved.isEmpty ? nil : unsaved.sorted() }
        return listed + unsaved.filter { !listed.contains($0) }.sorted()
    }

    func contents(ofFileAt path: String, limit: Int) -> Result<[UInt8], FileReadFailure> {
        reads.note(path)
        guard let buffer = buffers[path] else { return base.contents(ofFileAt: path, limit: limit) }
        return buffer.count > limit ? .failure(.tooLarge) : .success(buffer)
    }
}

/// The paths read during one check.
final class ReadLog: Sendable {
    private let paths = LockedValue<Set<String>>([])

    init() {}

    func note(_ path: String) {
        paths.withLock { _ = $0.insert(path) }
    }

    var all: Set<String> { paths.withLock { $0 } }
}
