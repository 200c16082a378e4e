#if GRPC  // the trait; without it this module is empty
import GRPCCore

/// The response the caller reads: the parts of the attempt that counts.
///
/// An `AsyncThrowingStream` ends quietly when its reader is cancelled;
/// grpc-swift reads a stream that ends before its status as a transport
/// fault, so a cancelled read throws what the call ended with instead
/// (`CANCELLED`, its `cause` the `RetryFailure`), as grpc-swift's own
/// transports report a cancelled call.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct CallResponses<Bytes: GRPCContiguousBytes & Sendable>: AsyncSequence, Sendable {
    typealias Element = RPCResponsePart<Bytes>
    typealias Failure = any Error

    let parts: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>
    let ending: CallEnding

    struct AsyncIterator: AsyncIteratorProtocol {
        typealias Element = RPCResponsePart<Bytes>
        typealias Failure = any Error

        var parts: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.AsyncIterator
        let ending: CallEnding

        mutating func next() async throws -> RPCResponsePart<Bytes>? {
            if let part = try await parts.next() { return part }
            if Task.isCancelled {
                throw await ending.error() ?? RPCError(code: .cancelled, message: "the call was cancelled")
            }
            return nil
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(parts: parts.makeAsyncIterator(), ending: ending) }
}
#endif
