import Foundation
import RetryPolicyCore

/// Reads a policy file's bytes, never more than the size limit, so a path
/// to a huge file or an endless device (`/dev/zero`) fails fast instead of
/// filling memory.
enum PolicyFileReader {
    /// The file's bytes, or a diagnostic at `location` (the file itself
    /// when `nil`) explaining why it cannot be read.
    static func read(_ path: String, limits: YAMLLimits, reportedAt location: SourceLocation? = nil) -> Result<[UInt8], PolicyLoadError> {
        let at = location ?? SourceLocation(file: path, line: 1, column: 1)
        func failure(_ reason: String) -> Result<[UInt8], PolicyLoadError> {
            .failure(PolicyLoadError(Diagnostic(.unreadableFile, at: at, "expected a readable policy file at '\(path)', found \(reason)")))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return failure("no such file") }
        if isDirectory.boolValue { return failure("a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else { return failure("a file that cannot be opened (permission denied?)") }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limits.maxBytes + 1) ?? Data()
            if data.count > limits.maxBytes {
                return .failure(PolicyLoadError(Diagnostic(
                    .limitExceeded, at: SourceLocation(file: path, line: 1, column: 1),
                    "expected a policy file of at most \(limits.maxBytes) bytes, found a larger file")))
            }
            return .success([UInt8](data))
        } catch {
            return failure("a read error (\(error.localizedDescription))")
        }
    }

    /// `relative` resolved against the directory of `file`, spelt the way
    /// the user spelt `file` so messages show familiar paths.
    static func resolve(_ relative: String, from file: String) -> String {
        if relative.hasPrefix("/") { return relative }
        guard let slash = file.lastIndex(of: "/") else { return relative }
        return String(file[...slash]) + relative
    }

    /// An absolute, normalised form of `path`, to recognise one file
    /// reached by two spellings (cycle detection).
    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
