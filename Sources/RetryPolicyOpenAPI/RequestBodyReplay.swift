#if OpenAPI  // the trait; without it this module is empty
import OpenAPIRuntime

/// A request body made ready for attempts: one that every attempt can send
/// again, or, when it cannot be, the body to send once.
///
/// A body whose sequence can be iterated again (`.multiple`: bytes, a
/// string, `Data`) is sent as it is. A one-shot stream (`.single`) is read
/// into memory up to a limit and then replayed from there; a stream longer
/// than the limit is not buffered whole: what was read goes first, then the
/// rest of the stream, in one attempt.
struct RequestBodyReplay: Sendable {
    /// What every attempt sends.
    var body: HTTPBody?
    /// Every attempt can send ``body``; otherwise there is one attempt.
    var isReplayable: Bool

    static func prepare(_ body: HTTPBody?, bufferingUpTo limit: Int) async throws -> RequestBodyReplay {
        guard let body, body.iterationBehavior == .single else {
            return RequestBodyReplay(body: body, isReplayable: true)
        }
        if case .known(let length) = body.length, length > Int64(limit) {
            return RequestBodyReplay(body: body, isReplayable: false)
        }
        var iterator = body.makeAsyncIterator()
        var chunks: [HTTPBody.ByteChunk] = []
        var count = 0
        while let chunk = try await iterator.next() {
            chunks.append(chunk)
            count += chunk.count
            if count > limit {
                let rest = ResumedBody(read: chunks, rest: IteratorBox(iterator))
                return RequestBodyReplay(
                    body: HTTPBody(rest, length: body.length, iterationBehavior: .single), isReplayable: false)
            }
        }
        return RequestBodyReplay(body: HTTPBody(chunks.flatMap { $0 }), isReplayable: true)
    }
}

/// The chunks of a stream already read, then the rest of the stream.
private struct ResumedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let read: [HTTPBody.ByteChunk]
    let rest: IteratorBox

    struct AsyncIterator: AsyncIteratorProtocol {
        var read: IndexingIterator<[HTTPBody.ByteChunk]>
        let rest: IteratorBox

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            if let chunk = read.next() { return chunk }
            return try await rest.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(read: read.makeIterator(), rest: rest) }
}

/// The iterator of a one-shot stream, handed on to the body that sends the
/// rest of it. It is iterated once, by that body's one attempt, hence the
/// unchecked `Sendable`.
private final class IteratorBox: @unchecked Sendable {
    private var iterator: HTTPBody.AsyncIterator

    init(_ iterator: HTTPBody.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> HTTPBody.ByteChunk? {
        var iterator = self.iterator
        defer { self.iterator = iterator }
        return try await iterator.next()
    }
}
#endif
