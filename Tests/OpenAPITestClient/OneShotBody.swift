import OpenAPIRuntime

extension HTTPBody {
    /// `bytes` as a stream that can be read once, in pieces of
    /// `chunkSize` bytes: a body no client or middleware can send again
    /// without having kept it.
    public static func oneShot(_ bytes: [UInt8], chunkSize: Int = 512) -> HTTPBody {
        let size = Swift.max(chunkSize, 1)
        let stream = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
            for start in stride(from: 0, to: bytes.count, by: size) {
                continuation.yield(bytes[start..<Swift.min(start + size, bytes.count)])
            }
            continuation.finish()
        }
        return HTTPBody(stream, length: .unknown)
    }
}
