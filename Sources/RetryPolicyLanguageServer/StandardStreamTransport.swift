import Foundation
import RetryPolicyCore
import RetryPolicyYAML

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a `LanguageServer` over standard input and output: reads on a
/// thread of its own (a blocking `read` never holds a task thread),
/// hands each framed message to the server in order, and writes the
/// server's messages whole, one at a time.
public enum StandardStreamTransport {
    /// Serves until `exit` or the end of input; the exit status.
    public static func run(
        root: PolicyRoot?, maximumMessageBytes: Int = MessageFramer.defaultMaximumMessageBytes,
        debounce: Duration = LanguageServer.defaultDebounce
    ) async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let writer = LockedValue(())
        let server = LanguageServer(root: root, debounce: debounce) { bytes in
            writer.withLock { _ in writeAll(bytes, to: 1) }
        }
        let (frames, continuation) = AsyncStream.makeStream(of: MessageFramer.Frame.self, bufferingPolicy: .unbounded)
        let reader = Thread {
            var framer = MessageFramer(maximumMessageBytes: maximumMessageBytes)
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                framer.append(chunk[..<count])
                while let frame = framer.next() { continuation.yield(frame) }
            }
            continuation.finish()
        }
        reader.start()
        for await frame in frames {
            switch frame {
            case .message(let body):
                if case .exit(let status) = await server.handle(body) { return status }
            case .rejected(let error):
                await server.reject(error)
            }
        }
        // The client went away without `exit`.
        return 1
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
