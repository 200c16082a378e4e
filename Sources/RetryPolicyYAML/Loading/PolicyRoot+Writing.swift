#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import RetryPolicyCore

/// The one way the tools write a file: inside the root, atomically, never
/// through a symbolic link, never over an existing file unless asked.
///
/// A pull request decides the names in the tree the tools run on, so a
/// file they write must not land where a link committed in it points (a
/// shell profile, a CI script), outside the root, or in `.git`. The path
/// is taken apart lexically below the root (`..` may not leave it), and
/// every directory on the way is opened from the root's descriptor with
/// `O_NOFOLLOW`, one component at a time: a link anywhere below the root,
/// whether it leads out or not, is refused, and no component is looked
/// up twice, so a link swapped in meanwhile is refused too. Missing
/// directories are created the same way (`mkdirat`, then opened without
/// following a link).
///
/// The text goes to a new temporary file in the destination's directory
/// (`O_CREAT|O_EXCL|O_NOFOLLOW`), is flushed with `fsync`, and only then
/// takes the destination's name: `linkat`, which fails if the name exists,
/// when nothing may be replaced, `renameat` over an existing regular file
/// when it may. A reader sees the old file or the new one, never a part;
/// a link or a directory at the name is never replaced.
///
/// Writes always go to the operating system's file system, whatever
/// ``fileSystem`` the root reads through.
extension PolicyRoot {
    /// Why a file is not written: the path as given and what to do.
    package struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        package var path: String
        package var reason: String

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        package var description: String { "\(path): \(reason)" }
    }

    /// Writes `text` to `path` (absolute, or relative to the working
    /// directory) inside the root, creating the missing directories on
    /// the way. An existing regular file is replaced only when
    /// `replacing` is true (`--force`); a link or anything but a regular
    /// file at the name never is.
    package func write(_ text: String, to path: String, replacing: Bool) throws(WriteError) {
        let target = try destination(of: path)
        let directory = try openDirectory(target.parents, for: path, creating: true)!
        defer { close(directory) }
        let existing = try check(target.name, in: directory, for: path, replacing: replacing)
        try place(Array(text.utf8), named: target.name, in: directory, for: path, replacing: replacing, mode: existing)
    }

    /// Throws what ``write(_:to:replacing:)`` would refuse `path` for,
    /// creating and changing nothing: a command that writes several files
    /// checks them all before it writes the first.
    package func checkWritable(_ path: String, replacing: Bool) throws(WriteError) {
        let target = try destination(of: path)
        guard let directory = try openDirectory(target.parents, for: path, creating: false) else { return }
        defer { close(directory) }
        _ = try check(target.name, in: directory, for: path, replacing: replacing)
    }

    /// Whether `path` names a directory inside the root, reached without a
    /// link below the root: where a command may write files.
    package func isWritableDirectory(_ path: String) -> Bool {
        guard let parts = try? componentsBelowRoot(path) else { return false }
        guard let directory = try? openDirectory(parts, for: path, creating: false) else { return false }
        close(directory)
        return true
    }

    // MARK: Resolving

    /// `path` below the root: the directories to walk and the file's name.
    private func destination(of path: String) throws(WriteError) -> (parents: [String], name: String) {
        var parts = try componentsBelowRoot(path)
        guard let name = parts.popLast() else {
            throw WriteError(path: path, reason: "is the root directory itself; name a file inside it")
        }
        if path.hasSuffix("/") {
            throw WriteError(path: path, reason: "ends in '/', which names a directory; name a file")
        }
        return (parts, name)
    }

    /// The components of `path` below the root, `..` applied lexically
    /// (every directory is then opened without following a link, so the
    /// lexical answer is the one the kernel would give, or a refusal).
    private func componentsBelowRoot(_ path: String) throws(WriteError) -> [String] {
        guard !path.isEmpty else { throw WriteError(path: path, reason: "an empty path; name a file") }
        guard !path.utf8.contains(0) else { throw WriteError(path: path, reason: "a path holding a NUL byte") }
        var parts = Self.split(absolute(path))
        if let spelling, parts.count >= spelling.count, Array(parts.prefix(spelling.count)) == spelling {
            parts = components + parts.dropFirst(spelling.count)
        }
        var resolved: [String] = []
        for part in parts where part != "." {
            if part == ".." {
                if resolved.isEmpty { continue }
                resolved.removeLast()
            } else {
                resolved.append(part)
            }
        }
        guard resolved.count >= components.count, Array(resolved.prefix(components.count)) == components else {
            throw WriteError(
                path: path,
                reason: "is outside the root \(self.path); files are written only inside it (write inside it, or pass --root)")
        }
        let inside = Array(resolved.dropFirst(components.count))
        // Case-folded: `.GIT` is `.git` on a case-insensitive file system.
        if inside.contains(where: { $0.lowercased() == ".git" }) {
            throw WriteError(path: path, reason: "is inside a .git folder, which is never written")
        }
        if components.isEmpty, let first = inside.first, ["proc", "sys", "dev"].contains(first) {
            throw WriteError(path: path, reason: "is on a special file system (/\(first)), which is never written")
        }
        return inside
    }

    // MARK: System calls

    /// The directory below the root, opened component by component without
    /// following a link; missing ones created when `creating`, else `nil`
    /// for a directory that does not exist yet.
    private func openDirectory(_ parts: [String], for path: String, creating: Bool) throws(WriteError) -> Int32? {
        var directory = open(self.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else {
            throw WriteError(path: path, reason: "cannot open the root \(self.path) (\(Self.systemError()))")
        }
        for (index, part) in parts.enumerated() {
            var next = openat(directory, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT {
                guard creating else {
                    close(directory)
                    return nil
                }
                if mkdirat(directory, part, 0o777) != 0 && errno != EEXIST {
                    let error = Self.systemError()
                    close(directory)
                    throw WriteError(path: path, reason: "cannot create the directory \(shown(parts[...index])) (\(error))")
                }
                next = openat(directory, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if next < 0 {
                let error = Self.systemError()
                let kind = Self.kind(of: part, in: directory)
                close(directory)
                let place = shown(parts[...index])
                switch kind {
                case .symbolicLink?:
                    throw WriteError(
                        path: path, reason: "passes through the symbolic link \(place); files are never written through a link")
                case let kind?:
                    throw WriteError(path: path, reason: "passes through \(place), which is \(kind), not a directory")
                case nil:
                    throw WriteError(path: path, reason: "cannot open the directory \(place) (\(error))")
                }
            }
            close(directory)
            directory = next
        }
        return directory
    }

    /// What is at `name` now: refused unless nothing (`nil`) or, when
    /// `replacing`, a regular file (its permission bits, kept by the new
    /// file).
    private func check(_ name: String, in directory: Int32, for path: String, replacing: Bool) throws(WriteError) -> mode_t? {
        var status = stat()
        guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            throw WriteError(path: path, reason: "cannot be looked at (\(Self.systemError()))")
        }
        switch SystemFileSystem.kind(of: status.st_mode) {
        case .regular:
            guard replacing else { throw WriteError(path: path, reason: "exists; pass --force to replace it") }
            return status.st_mode & 0o7777
        case .symbolicLink:
            throw WriteError(
                path: path,
                reason: "is a symbolic link; a file is never written through a link or over one, even with --force (remove the link, or write elsewhere)")
        case .directory:
            throw WriteError(path: path, reason: "is a directory; name a file, even with --force")
        case let kind:
            throw WriteError(path: path, reason: "is \(kind); it is never written, even with --force")
        }
    }

    /// Writes `bytes` to a new temporary file beside `name`, flushes it,
    /// then gives it the name.
    private func place(
        _ bytes: [UInt8], named name: String, in directory: Int32, for path: String, replacing: Bool, mode: mode_t?
    ) throws(WriteError) {
        var temporary = ""
        var file: Int32 = -1
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            temporary = ".retry-policy-\(getpid())-\(String(generator.next() as UInt64, radix: 36)).tmp"
            file = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if file >= 0 || errno != EEXIST { break }
        }
        guard file >= 0 else {
            throw WriteError(path: path, reason: "cannot create a file in its directory (\(Self.systemError()))")
        }
        func fail(_ what: String) -> WriteError {
            let error = Self.systemError()
            unlinkat(directory, temporary, 0)
            return WriteError(path: path, reason: "\(what) (\(error))")
        }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { writeBytes(file, $0) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = fail("cannot write")
                close(file)
                throw error
            }
            written += count
        }
        if let mode { fchmod(file, mode) }
        guard fsync(file) == 0 else {
            let error = fail("cannot flush the file to disk")
            close(file)
            throw error
        }
        guard close(file) == 0 else { throw fail("cannot write") }
        if replacing {
            guard renameat(directory, temporary, directory, name) == 0 else { throw fail("cannot replace the file") }
        } else if linkat(directory, temporary, directory, name, 0) == 0 {
            unlinkat(directory, temporary, 0)
        } else if errno == EEXIST {
            unlinkat(directory, temporary, 0)
            throw WriteError(path: path, reason: "exists; pass --force to replace it")
        } else {
            // A file system without hard links: the name was free a moment
            // ago and is checked again just before the rename.
            guard Self.kind(of: name, in: directory) == nil else {
                unlinkat(directory, temporary, 0)
                throw WriteError(path: path, reason: "exists; pass --force to replace it")
            }
            guard renameat(directory, temporary, directory, name) == 0 else { throw fail("cannot write the file") }
        }
        // The new name itself survives a crash once the directory is flushed.
        fsync(directory)
    }

    private static func kind(of name: String, in directory: Int32) -> FileKind? {
        var status = stat()
        guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return SystemFileSystem.kind(of: status.st_mode)
    }

    /// `parts` below the root as a path, for messages.
    private func shown(_ parts: ArraySlice<String>) -> String {
        Self.join(components + parts)
    }

    private static func systemError() -> String {
        String(cString: strerror(errno))
    }
}

/// `write(2)`, out of reach of ``PolicyRoot/write(_:to:replacing:)``'s name.
private func writeBytes(_ file: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
    write(file, buffer.baseAddress, buffer.count)
}
