#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PolicyRoot {
    /// Why a file is not opened for streaming.
    package struct StreamingRefusal: Error, Sendable, Hashable, CustomStringConvertible {
        package var path: String
        /// The root's refusal (outside the root, `.git`, `/proc`...), when
        /// that is the reason.
        package var denial: Denial?
        package var reason: String

        package var description: String { "\(path): \(reason)" }
    }

    /// A regular file inside the root, opened for reading in chunks: for
    /// inputs too large to read whole (recorded traffic), under the same
    /// confinement as every other read.
    ///
    /// The path is resolved as ``locate(_:)`` resolves it (nothing outside
    /// the root is looked up; `.git`, `/proc`, `/sys` and `/dev` are
    /// refused); anything but a regular file (a FIFO, a socket, a device,
    /// a directory) is refused before it is opened, and the file is opened
    /// without following a link in its last component, without blocking,
    /// and checked again to be a regular file once open.
    package func openForStreaming(_ path: String) -> Result<StreamedFile, StreamingRefusal> {
        let located: Located
        switch locate(path) {
        case .success(let found): located = found
        case .failure(let denial):
            return .failure(StreamingRefusal(path: path, denial: denial, reason: denial.reason))
        }
        guard located.kind == .regular else {
            return .failure(StreamingRefusal(
                path: path, denial: nil, reason: "expected a regular file, found \(located.kind); it is not read"))
        }
        guard fileSystem is SystemFileSystem else {
            // Another file system (a test's) has no descriptors: its
            // contents are handed out in chunks.
            switch fileSystem.contents(ofFileAt: located.canonicalPath, limit: StreamedFile.bufferedLimit) {
            case .success(let bytes): return .success(StreamedFile(bytes: bytes))
            case .failure(let failure): return .failure(StreamingRefusal(path: path, denial: nil, reason: Self.reason(failure)))
            }
        }
        let descriptor = open(located.canonicalPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            return .failure(StreamingRefusal(path: path, denial: nil, reason: "cannot be opened (\(SystemFileSystem.lastError()))"))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = SystemFileSystem.lastError()
            close(descriptor)
            return .failure(StreamingRefusal(path: path, denial: nil, reason: "cannot be read (\(reason))"))
        }
        let kind = SystemFileSystem.kind(of: status.st_mode)
        guard kind == .regular else {
            close(descriptor)
            return .failure(StreamingRefusal(
                path: path, denial: nil, reason: "expected a regular file, found \(kind); it is not read"))
        }
        return .success(StreamedFile(descriptor: descriptor))
    }

    private static func reason(_ failure: FileReadFailure) -> String {
        switch failure {
        case .notRegular(let kind): "expected a regular file, found \(kind); it is not read"
        case .tooLarge: "larger than \(StreamedFile.bufferedLimit) bytes"
        case .system(let text): "cannot be read (\(text))"
        }
    }
}

/// A regular file open for reading a chunk at a time (see
/// ``PolicyRoot/openForStreaming(_:)``); closed when released.
package final class StreamedFile {
    private var descriptor: Int32?
    private var buffered: [UInt8]?
    private var offset = 0
    /// What a file system without descriptors may hand out.
    static let bufferedLimit = 256 << 20

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    init(bytes: [UInt8]) {
        buffered = bytes
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// At most `count` bytes, `nil` at the end of the file.
    package func read(upTo count: Int) throws(FileReadFailure) -> [UInt8]? {
        let count = max(count, 1)
        if let buffered {
            guard offset < buffered.count else { return nil }
            let end = min(buffered.count, offset + count)
            defer { offset = end }
            return Array(buffered[offset..<end])
        }
        guard let descriptor else { return nil }
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let read = chunk.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress, count) }
            if read < 0 {
                if errno == EINTR { continue }
                throw .system(SystemFileSystem.lastError())
            }
            if read == 0 { return nil }
            chunk.removeSubrange(read...)
            return chunk
        }
    }
}

/// `read(2)`, named apart from ``StreamedFile/read(upTo:)``.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
