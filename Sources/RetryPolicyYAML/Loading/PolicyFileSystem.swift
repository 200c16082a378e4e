#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a directory entry is, as `lstat` sees it (a symbolic link is not
/// followed).
public enum FileKind: Sendable, Hashable, CustomStringConvertible {
    case regular
    case directory
    case symbolicLink
    case fifo
    case socket
    case characterDevice
    case blockDevice
    case other

    public var description: String {
        switch self {
        case .regular: "a regular file"
        case .directory: "a directory"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .other: "a special file"
        }
    }
}

/// Why a file's contents could not be read.
public enum FileReadFailure: Error, Sendable, Hashable {
    /// Opened, but it is not a regular file (it changed since it was
    /// looked at, or it is a FIFO, socket or device).
    case notRegular(FileKind)
    /// More than the limit: reading stopped at the limit plus one byte.
    case tooLarge
    /// The system refused; the text is `strerror`'s.
    case system(String)
}

/// The few file-system operations the loader, lint and the policy store
/// need, so that tests can watch every path they touch.
///
/// Paths given to these functions are absolute and already resolved by
/// ``PolicyRoot``; none of them follows a symbolic link in the last
/// component.
public protocol PolicyFileSystem: Sendable {
    /// The working directory, absolute.
    var currentDirectory: String { get }
    /// The kind of the entry at `path`, `nil` when there is none.
    func kind(ofEntryAt path: String) -> FileKind?
    /// Where the symbolic link at `path` points, as written in the link.
    func destination(ofLinkAt path: String) -> String?
    /// The names in the directory at `path` (without `.` and `..`), `nil`
    /// when it cannot be listed.
    func names(inDirectoryAt path: String) -> [String]?
    /// At most `limit` bytes of the regular file at `path`: opened without
    /// following a link and without blocking, checked to be a regular file
    /// once open, read no further than `limit + 1` bytes.
    func contents(ofFileAt path: String, limit: Int) -> Result<[UInt8], FileReadFailure>
}

/// The operating system's file system.
public struct SystemFileSystem: PolicyFileSystem {
    public init() {}

    public var currentDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    public func kind(ofEntryAt path: String) -> FileKind? {
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return Self.kind(of: status.st_mode)
    }

    public func destination(ofLinkAt path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func names(inDirectoryAt path: String) -> [String]? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func contents(ofFileAt path: String, limit: Int) -> Result<[UInt8], FileReadFailure> {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.system(Self.lastError())) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.system(Self.lastError())) }
        let kind = Self.kind(of: status.st_mode)
        guard kind == .regular else { return .failure(.notRegular(kind)) }
        // Sized by what fstat says (one byte more, to see a file that
        // grew), so a policy of a few kilobytes costs a few kilobytes; the
        // loop and the limit still decide what is read.
        let expected = min(max(Int(status.st_size), 0), limit) + 1
        var bytes: [UInt8] = []
        bytes.reserveCapacity(expected)
        var chunk = [UInt8](repeating: 0, count: min(64 * 1024, max(expected, 4096)))
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.system(Self.lastError()))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes.count > limit ? .failure(.tooLarge) : .success(bytes)
    }

    static func kind(of mode: mode_t) -> FileKind {
        switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        case S_IFIFO: .fifo
        case S_IFSOCK: .socket
        case S_IFCHR: .characterDevice
        case S_IFBLK: .blockDevice
        default: .other
        }
    }

    static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
