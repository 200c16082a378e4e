#if canImport(Glibc)
import Glibc
#endif

/// The symbolic links through which a deployment swaps a whole generation
/// of the directory at once: the directory's own path when it is a link (a
/// deploy's `current`), and the `..data` link inside it that a Kubernetes
/// config map (or any atomic writer of its kind) renames a new link over.
///
/// Every file behind such a link is resolved through it when it is opened,
/// so a reload that opens files one after another during a swap would read
/// some from the old generation and some from the new. The store takes the
/// links' state before a reload reads anything and again after the last
/// read: equal states mean every file was read through the same
/// generation. A swap always puts a new link in place (a rename over the
/// old one), whose inode and change time differ from the old link's even
/// when its destination is spelt the same, so a swap and a swap back still
/// differ.
struct AtomicWriterLinks: Equatable, Sendable {
    struct Link: Equatable, Sendable {
        var path: String
        var device: UInt64
        var inode: UInt64
        var changed: Int64
        var changedNanoseconds: Int64
        var destination: String
    }

    /// The name of the link a Kubernetes atomic writer swaps.
    static let dataLink = "..data"

    var links: [Link]

    /// The links of `directory` now: its own path's link, if any, and
    /// `..data` in the directory it leads to, if that is a link.
    static func of(directory: String) -> AtomicWriterLinks {
        var path = directory
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        var links: [Link] = []
        if let link = link(at: path) { links.append(link) }
        if let link = link(at: path + "/" + dataLink) { links.append(link) }
        return AtomicWriterLinks(links: links)
    }

    /// Whether the file at `path` is one of the atomic writer's: a link
    /// into `..data`, whose content is complete before the swap publishes it.
    static func isPublished(byDataLink path: String) -> Bool {
        guard let destination = destination(ofLinkAt: path) else { return false }
        return destination == dataLink || destination.hasPrefix(dataLink + "/")
    }

    #if canImport(Glibc)
    private static func link(at path: String) -> Link? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
            let destination = destination(ofLinkAt: path)
        else { return nil }
        return Link(
            path: path, device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
            changed: Int64(status.st_ctim.tv_sec), changedNanoseconds: Int64(status.st_ctim.tv_nsec),
            destination: destination)
    }

    private static func destination(ofLinkAt path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #else
    private static func link(at path: String) -> Link? { nil }
    private static func destination(ofLinkAt path: String) -> String? { nil }
    #endif
}
