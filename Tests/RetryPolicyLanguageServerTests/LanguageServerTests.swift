import Foundation
import RetryPolicyCore
import RetryPolicyTesting
import RetryPolicyYAML
import Testing
@testable import RetryPolicyLanguageServer

/// The server without a transport: messages in, messages out, time on a
/// test clock.
@Suite("The language server's session")
struct LanguageServerTests {
    final class Session: Sendable {
        let clock = ManualClock()
        let sent = LockedValue<[LSPValue]>([])
        let server: LanguageServer
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("lsp-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let root = try PolicyRoot(directory: directory.path)
            let sent = self.sent
            server = LanguageServer(root: root, debounce: .milliseconds(150), clock: clock) { bytes in
                var framer = MessageFramer()
                framer.append(bytes)
                guard case .message(let body)? = framer.next(),
                    let value = try? JSONDecoder().decode(LSPValue.self, from: Data(body))
                else { return }
                sent.withLock { $0.append(value) }
            }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        func send(_ message: JSONRPCMessage) async -> LanguageServer.Next {
            await server.handle(message.encoded())
        }

        var uri: String { directory.appendingPathComponent("p.yaml").absoluteString }

        func published() -> [LSPValue] {
            sent.withLock { $0.filter { $0["method"]?.string == "textDocument/publishDiagnostics" } }
        }

        /// Lets the server's tasks run: yields until `condition` or a bound.
        func settle(until condition: () -> Bool) async {
            for _ in 0..<10_000 where !condition() { await Task.yield() }
        }
    }

    static let policy = "version: 1\nname: p\nattempts: 3\nrules:\n  - status: 503\n    error: status_5xx\n    action: retry\n"

    @Test("changes are checked once, after the text has rested for the debounce time")
    func debounced() async throws {
        let session = try Session()
        _ = await session.send(.request(id: .number(1), "initialize", ["capabilities": [:]]))
        _ = await session.send(.notification("textDocument/didOpen", [
            "textDocument": ["uri": .string(session.uri), "languageId": "yaml", "version": 1, "text": .string(Self.policy)],
        ]))
        #expect(session.published().count == 1)
        for version in 2...3 {
            _ = await session.send(.notification("textDocument/didChange", [
                "textDocument": ["uri": .string(session.uri), "version": .int(version)],
                "contentChanges": [["text": .string(Self.policy.replacingOccurrences(of: "attempts: 3", with: "attempts: 0"))]],
            ]))
        }
        await session.settle { session.clock.sleeperCount >= 1 }
        session.clock.advance(by: .milliseconds(149))
        await session.settle { session.published().count > 1 }
        #expect(session.published().count == 1)
        session.clock.advance(by: .milliseconds(1))
        await session.settle { session.published().count > 1 }
        let published = session.published()
        #expect(published.count == 2)
        #expect(published.last?["params"]?["version"] == 3)
        #expect(published.last?["params"]?["diagnostics"]?.array?.first?["code"] == "RP019")
        #expect(await session.server.openDocumentCount == 1)
        _ = await session.send(.notification("textDocument/didClose", ["textDocument": ["uri": .string(session.uri)]]))
        #expect(await session.server.openDocumentCount == 0)
    }

    @Test("open documents are bounded: one past the limit is not held, and the client is told")
    func openDocumentsBounded() async throws {
        let session = try Session()
        _ = await session.send(.request(id: .number(1), "initialize", ["capabilities": [:]]))
        let limit = LanguageServer.maximumOpenDocuments
        for number in 0...limit {
            let uri = session.directory.appendingPathComponent("n\(number).txt").absoluteString
            _ = await session.send(.notification("textDocument/didOpen", [
                "textDocument": ["uri": .string(uri), "languageId": "plaintext", "version": 1, "text": "x"],
            ]))
        }
        #expect(await session.server.openDocumentCount == limit)
        let refusals = session.sent.withLock { sent in
            sent.filter { $0["method"]?.string == "window/showMessage" && $0["params"]?["type"] == 1 }
        }
        #expect(refusals.count == 1)
        // A document already open may still change; closing one makes room.
        let first = session.directory.appendingPathComponent("n0.txt").absoluteString
        _ = await session.send(.notification("textDocument/didClose", ["textDocument": ["uri": .string(first)]]))
        _ = await session.send(.notification("textDocument/didOpen", [
            "textDocument": ["uri": .string(session.uri), "languageId": "yaml", "version": 1, "text": .string(Self.policy)],
        ]))
        #expect(await session.server.openDocumentCount == limit)
        #expect(session.published().contains { $0["params"]?["uri"]?.string == session.uri })
    }

    @Test("malformed messages and unknown methods get JSON-RPC errors; exit after shutdown is status 0")
    func errors() async throws {
        let session = try Session()
        #expect(await session.server.handle(Array("{oops".utf8)) == .proceed)
        _ = await session.send(.request(id: .number(1), "textDocument/hover", [:]))
        _ = await session.send(.request(id: .number(2), "initialize", ["capabilities": [:]]))
        _ = await session.send(.request(id: .number(3), "no/such", [:]))
        _ = await session.send(.request(id: .number(4), "shutdown", .null))
        _ = await session.send(.request(id: .number(5), "textDocument/hover", [:]))
        let codes = session.sent.withLock { $0.map { $0["error"]?["code"]?.int } }
        #expect(codes == [-32700, -32002, nil, -32601, nil, -32600])
        #expect(await session.send(.notification("exit", .null)) == .exit(0))
    }
}
