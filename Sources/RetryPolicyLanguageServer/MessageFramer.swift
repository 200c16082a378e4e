import Foundation

/// Splits the bytes a client writes into JSON-RPC messages, each framed as
/// the Language Server Protocol says: headers (`Content-Length: N`), an
/// empty line, then `N` bytes of JSON.
///
/// Reads may end anywhere (in a header, in a body) or hold several
/// messages: bytes are kept until a message is whole. A message longer
/// than `maximumMessageBytes` is never held: its body is skipped as it
/// arrives and reported once, so no client can make the server keep more
/// than the limit.
public struct MessageFramer: Sendable {
    /// What `next()` hands out.
    public enum Frame: Sendable, Hashable {
        /// One message's body.
        case message([UInt8])
        /// A message that cannot be read; the framer has moved past it.
        case rejected(FramingError)
    }

    /// Why a message was not read.
    public enum FramingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// `Content-Length` above the limit: the body is skipped.
        case tooLarge(length: Int, limit: Int)
        /// The headers name no length, or not a number.
        case missingLength
        /// The header block is longer than `maximumHeaderBytes`, wherever
        /// the reads end: one that has not ended is dropped as it passes
        /// the limit, one that has is dropped with the body it names.
        case headerTooLong

        public var description: String {
            switch self {
            case .tooLarge(let length, let limit): "a message of \(length) bytes is larger than the limit of \(limit) bytes"
            case .missingLength: "a message's headers must include Content-Length: <bytes>"
            case .headerTooLong: "a message's headers are longer than the limit"
            }
        }
    }

    /// The default largest body: a policy is at most a few megabytes
    /// (`YAMLLimits`), and its text travels escaped.
    public static let defaultMaximumMessageBytes = 16 * 1024 * 1024
    /// The longest header block accepted.
    public static let maximumHeaderBytes = 8 * 1024

    public let maximumMessageBytes: Int
    private var buffer: [UInt8] = []
    /// Where unread bytes start in `buffer` (compacted as it grows).
    private var start = 0
    /// Body bytes still to throw away of a message that was too large.
    private var skipping = 0
    private var pending: [Frame] = []

    public init(maximumMessageBytes: Int = MessageFramer.defaultMaximumMessageBytes) {
        self.maximumMessageBytes = maximumMessageBytes
    }

    /// How many bytes are held, waiting for the rest of a message.
    public var heldBytes: Int { buffer.count - start }

    /// Adds what one read returned.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        var input = bytes[...]
        if skipping > 0 {
            let dropped = min(skipping, input.count)
            skipping -= dropped
            input = input.dropFirst(dropped)
        }
        buffer.append(contentsOf: input)
        split()
    }

    /// The next whole message or rejection, in the order they arrived.
    public mutating func next() -> Frame? {
        pending.isEmpty ? nil : pending.removeFirst()
    }

    private mutating func split() {
        while skipping == 0 {
            guard let end = headerEnd() else {
                if heldBytes > Self.maximumHeaderBytes {
                    pending.append(.rejected(.headerTooLong))
                    buffer.removeAll(keepingCapacity: false)
                    start = 0
                }
                break
            }
            let headers = String(decoding: buffer[start..<end.headers], as: UTF8.self)
            // A block that ended within the read that brought it is held
            // whole, so the limit is checked again here: otherwise the
            // reads' sizes, not the limit, would bound what is kept.
            if end.body - start > Self.maximumHeaderBytes {
                pending.append(.rejected(.headerTooLong))
                skipBody(of: Self.contentLength(in: headers) ?? 0, at: end.body)
                continue
            }
            guard let length = Self.contentLength(in: headers) else {
                pending.append(.rejected(.missingLength))
                start = end.body
                continue
            }
            if length > maximumMessageBytes {
                pending.append(.rejected(.tooLarge(length: length, limit: maximumMessageBytes)))
                skipBody(of: length, at: end.body)
                continue
            }
            guard buffer.count - end.body >= length else { break }
            pending.append(.message(Array(buffer[end.body..<(end.body + length)])))
            start = end.body + length
        }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count <= 64 * 1024)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// Moves past a refused message's `length` body bytes from `body`:
    /// those already read are let go, the rest are dropped as they come.
    private mutating func skipBody(of length: Int, at body: Int) {
        let dropped = min(buffer.count - body, length)
        start = body + dropped
        skipping = length - dropped
    }

    /// Where the header block ends (`\r\n\r\n`, or `\n\n` from a lenient
    /// client) and its body starts.
    private func headerEnd() -> (headers: Int, body: Int)? {
        var index = start
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                if index + 1 < buffer.count, buffer[index + 1] == UInt8(ascii: "\n") { return (index, index + 2) }
                if index + 2 < buffer.count, buffer[index + 1] == UInt8(ascii: "\r"), buffer[index + 2] == UInt8(ascii: "\n") {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// The value of `Content-Length` (any case), `nil` when absent or not
    /// a decimal number that fits.
    static func contentLength(in headers: String) -> Int? {
        for line in headers.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            guard line[..<colon].lowercased() == "content-length" else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty, value.count <= 18, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(value)
        }
        return nil
    }

    /// A message framed for writing.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }
}
