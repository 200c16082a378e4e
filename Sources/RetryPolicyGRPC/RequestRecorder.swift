#if GRPC  // the trait; without it this module is empty
import GRPCCore
import RetryPolicyCore

/// The outbound side the caller writes a call's request to: it keeps every
/// part, so that each attempt can send them again, and hands them over
/// once the caller has finished writing.
///
/// Holding the whole request is what makes a call replayable; the
/// messages' bytes are bounded by `limit`, and a request past it fails
/// with `RESOURCE_EXHAUSTED` rather than growing without end.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class RequestRecorder<Bytes: GRPCContiguousBytes & Sendable>: ClosableRPCWriterProtocol, Sendable {
    typealias Element = RPCRequestPart<Bytes>

    private typealias Waiter = CheckedContinuation<[Element], any Error>

    private enum State {
        /// The caller is still writing; attempts (a first try and its
        /// hedged copies) wait for the whole request, each under its id.
        case writing(parts: [Element], bytes: Int, waiters: [Int: Waiter])
        case finished([Element])
        case failed(any Error)
    }

    private let state = LockedValue(State.writing(parts: [], bytes: 0, waiters: [:]))
    private let waiterIDs = LockedValue(0)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func write(_ element: Element) async throws {
        try state.withLock { state throws(RPCError) in
            guard case .writing(var parts, var bytes, let waiters) = state else {
                throw RPCError(code: .internalError, message: "a request part was written after the request ended")
            }
            if case .message(let message) = element {
                bytes = bytes.addingReportingOverflow(message.count).partialValue
                if bytes > limit || bytes < 0 {
                    let error = RPCError(
                        code: .resourceExhausted,
                        message: "the request's messages exceed the \(limit) bytes kept to replay them on a retry; "
                            + "raise maxReplayBytes, or send the method without a retry policy")
                    state = .failed(error)
                    for waiter in waiters.values { waiter.resume(throwing: error) }
                    throw error
                }
            }
            parts.append(element)
            state = .writing(parts: parts, bytes: bytes, waiters: waiters)
        }
    }

    func write(contentsOf elements: some Sequence<Element>) async throws {
        for element in elements { try await write(element) }
    }

    func finish() async {
        state.withLock { state in
            guard case .writing(let parts, _, let waiters) = state else { return }
            state = .finished(parts)
            for waiter in waiters.values { waiter.resume(returning: parts) }
        }
    }

    func finish(throwing error: any Error) async {
        state.withLock { state in
            guard case .writing(_, _, let waiters) = state else { return }
            state = .failed(error)
            for waiter in waiters.values { waiter.resume(throwing: error) }
        }
    }

    /// The whole request, once the caller has finished writing it; a
    /// cancelled wait throws `CancellationError`.
    func request() async throws -> [Element] {
        let id = waiterIDs.withLock { next in
            next &+= 1
            return next
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                state.withLock { state in
                    switch state {
                    case .writing(let parts, let bytes, var waiters):
                        if Task.isCancelled {
                            continuation.resume(throwing: CancellationError())
                        } else {
                            waiters[id] = continuation
                            state = .writing(parts: parts, bytes: bytes, waiters: waiters)
                        }
                    case .finished(let parts):
                        continuation.resume(returning: parts)
                    case .failed(let error):
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            state.withLock { state in
                guard case .writing(let parts, let bytes, var waiters) = state,
                    let waiter = waiters.removeValue(forKey: id)
                else { return }
                state = .writing(parts: parts, bytes: bytes, waiters: waiters)
                waiter.resume(throwing: CancellationError())
            }
        }
    }
}
#endif
