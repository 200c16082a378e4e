import Foundation
import RetryPolicyCore
import RetryPolicyCommandSupport
import RetryPolicyYAML

/// Recordings read in chunks, so that replay holds a window of a large
/// file rather than the file.
enum TrafficFiles {
    static let chunkSize = 1 << 20

    /// A reader of `path`'s chunks for `RecordingStream` (`-` is standard
    /// input). A recording is read through `root` as every other file is:
    /// a path leading out of it (absolute, `..`, a link), into `.git`,
    /// `/proc`, `/sys` or `/dev`, or to anything but a regular file (a
    /// FIFO, a device, a directory) is refused before it is read.
    static func chunks(of path: String, root: PolicyRoot) throws(CommandFailure) -> () throws -> [UInt8]? {
        if path == "-" {
            let handle = FileHandle.standardInput
            return {
                let data: Data?
                do {
                    data = try handle.read(upToCount: chunkSize)
                } catch {
                    throw CommandFailure("\(PolicyRoot.standardInputName): cannot be read: \(error.localizedDescription)")
                }
                guard let data, !data.isEmpty else { return nil }
                return [UInt8](data)
            }
        }
        let file: StreamedFile
        switch root.openForStreaming(path) {
        case .success(let opened): file = opened
        case .failure(let refusal):
            if refusal.denial?.kind == .notFound { throw CommandFailure(DisplayText.escaped(root.noSuchFileMessage(path, what: "no such file"))) }
            if refusal.denial?.kind == .outsideRoot {
                throw CommandFailure(DisplayText.escaped(refusal.description) + "\n    suggestion: move the recording inside the root, or set the root with --root")
            }
            throw CommandFailure(DisplayText.escaped(refusal.description))
        }
        return {
            do {
                return try file.read(upTo: chunkSize)
            } catch {
                throw CommandFailure(DisplayText.escaped("\(path): cannot be read: \(error)"))
            }
        }
    }
}
