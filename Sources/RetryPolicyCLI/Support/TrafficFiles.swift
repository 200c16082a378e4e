import Foundation
import RetryPolicyCommandSupport

/// Recordings read in chunks, so that replay holds a window of a large
/// file rather than the file.
enum TrafficFiles {
    static let chunkSize = 1 << 20

    /// A reader of `path`'s chunks for `RecordingStream` (`-` is standard
    /// input).
    static func chunks(of path: String) throws -> () throws -> [UInt8]? {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CommandFailure("\(path): no such file")
            }
            guard !isDirectory.boolValue else { throw CommandFailure("\(path): is a directory; name the recording files") }
            guard let opened = FileHandle(forReadingAtPath: path) else { throw CommandFailure("\(path): cannot be read") }
            handle = opened
        }
        return {
            let data: Data?
            do {
                data = try handle.read(upToCount: chunkSize)
            } catch {
                throw CommandFailure("\(path): cannot be read: \(error.localizedDescription)")
            }
            guard let data, !data.isEmpty else { return nil }
            return [UInt8](data)
        }
    }
}
