import Testing
@testable import RetryPolicyLanguageServer

@Suite("Content-Length framing of JSON-RPC messages")
struct MessageFramerTests {
    static func framed(_ body: String) -> [UInt8] { MessageFramer.frame(Array(body.utf8)) }

    @Test("a message split across reads at every byte comes out whole, once")
    func partialReads() {
        let body = Array(#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#.utf8)
        let bytes = MessageFramer.frame(body)
        for split in 1..<bytes.count {
            var framer = MessageFramer()
            framer.append(bytes[..<split])
            #expect(framer.next() == nil, "split at \(split)")
            framer.append(bytes[split...])
            #expect(framer.next() == .message(body))
            #expect(framer.next() == nil)
            #expect(framer.heldBytes == 0)
        }
    }

    @Test("two messages in one read come out in order")
    func twoInOneRead() {
        var framer = MessageFramer()
        framer.append(Self.framed("[1]") + Self.framed("[2,3]"))
        #expect(framer.next() == .message(Array("[1]".utf8)))
        #expect(framer.next() == .message(Array("[2,3]".utf8)))
        #expect(framer.next() == nil)
    }

    @Test("a length above the limit is refused and its body skipped, across reads, without holding it")
    func oversized() {
        var framer = MessageFramer(maximumMessageBytes: 100)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 1_000)
        let bytes = MessageFramer.frame(body) + Self.framed("[7]")
        framer.append(bytes[..<50])
        #expect(framer.next() == .rejected(.tooLarge(length: 1_000, limit: 100)))
        framer.append(bytes[50..<600])
        #expect(framer.heldBytes == 0)
        #expect(framer.next() == nil)
        framer.append(bytes[600...])
        #expect(framer.next() == .message(Array("[7]".utf8)))
    }

    @Test("headers without Content-Length, or with a bad one, are refused and the next message still read")
    func missingLength() {
        var framer = MessageFramer()
        framer.append(Array("Content-Type: x\r\n\r\n".utf8) + Array("Content-Length: -3\r\n\r\n".utf8) + Self.framed("[1]"))
        #expect(framer.next() == .rejected(.missingLength))
        #expect(framer.next() == .rejected(.missingLength))
        #expect(framer.next() == .message(Array("[1]".utf8)))
    }

    @Test("a header block that never ends is dropped at the header limit")
    func endlessHeader() {
        var framer = MessageFramer()
        framer.append([UInt8](repeating: UInt8(ascii: "a"), count: MessageFramer.maximumHeaderBytes + 10))
        #expect(framer.next() == .rejected(.headerTooLong))
        #expect(framer.heldBytes == 0)
    }

    @Test("a header block over the limit is refused with its body whether it ends in the read that brought it or a later one")
    func longHeaderInOneRead() {
        let padding = "X-Padding: " + String(repeating: "a", count: MessageFramer.maximumHeaderBytes + 200) + "\r\n"
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 4_000)
        let bytes = Array(padding.utf8) + MessageFramer.frame(body) + Self.framed("[7]")
        for read in [bytes.count, 1_000] {
            var framer = MessageFramer(maximumMessageBytes: 4_096)
            var frames: [MessageFramer.Frame] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + read)
                // Leave the body unfinished at first: it must not be held with the headers.
                let cut = offset == 0 && read == bytes.count ? bytes.count - 100 : end
                framer.append(bytes[offset..<cut])
                #expect(framer.heldBytes <= MessageFramer.maximumHeaderBytes + 4_096, "reads of \(read)")
                while let frame = framer.next() { frames.append(frame) }
                offset = cut
            }
            // Compared, not printed: a frame holds the 4,000-byte body.
            let refusedFirst = frames.first == .rejected(.headerTooLong)
            let nextRead = frames.last == .message(Array("[7]".utf8))
            #expect(refusedFirst, "reads of \(read)")
            #expect(nextRead, "reads of \(read)")
            #expect(frames.count == 2, "reads of \(read)")
            #expect(framer.heldBytes == 0)
        }
    }

    @Test("Content-Length is read in any case, beside other headers")
    func headerCase() {
        #expect(MessageFramer.contentLength(in: "content-length: 12\r\nContent-Type: application/vscode-jsonrpc") == 12)
        #expect(MessageFramer.contentLength(in: "Content-Length: 99999999999999999999") == nil)
    }
}
