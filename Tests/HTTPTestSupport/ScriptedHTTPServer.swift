#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import NIOCore
import PostgresTestServer
import NIOHTTP1
import NIOPosix
import NIOSSL
import RetryPolicyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the loopback server does with one request.
public enum ServerAction: Sendable {
    /// A complete response.
    case respond(status: Int, headers: [(String, String)] = [], body: String = "")
    /// Never answers (a server slower than any timeout); the connection
    /// stays open until the client gives up.
    case hang
    /// Sends the head and part of a body announced as longer, then closes
    /// the connection.
    case closeMidResponse(status: Int = 200)
    /// Sends the head and part of a body announced as longer, then resets
    /// the connection (RST rather than FIN).
    case resetMidResponse
    /// Closes the connection without sending anything (the keep-alive
    /// race: a server closing an idle connection as a request arrives).
    case closeWithoutResponse
}

/// An HTTP/1.1 server on 127.0.0.1 (port 0) that plays a script, one
/// action per request received, and counts what it received.
///
/// Requests past the end of the script get `200 OK`.
public final class ScriptedHTTPServer: Sendable {
    private struct State {
        var script: [ServerAction]
        var received: [String] = []
        var methods: [String] = []
        var bodies: [[UInt8]] = []
        /// Connections closed by the client while the server held a
        /// request unanswered (`hang`).
        var abandonedHangs = 0
        var receivedAt: [ContinuousClock.Instant] = []
        var traceparents: [String?] = []
        var idempotencyKeys: [String?] = []
        var headers: [[String: String]] = []
        var waiters: [Waiter] = []
        var nextWaiterID = 0

        func value(of counter: Counter) -> Int {
            switch counter {
            case .requests: received.count
            case .abandonedHangs: abandonedHangs
            }
        }
    }

    private enum Counter {
        case requests, abandonedHangs
    }

    /// A task waiting for a count of requests received or of held
    /// connections abandoned.
    private struct Waiter {
        var id: Int
        var counter: Counter
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private let state: LockedValue<State>
    private let channel: LockedValue<(any Channel)?> = LockedValue(nil)
    public let port: Int
    /// `https` when the server speaks TLS.
    public let scheme: String

    private init(script: [ServerAction], port: Int, scheme: String) {
        self.state = LockedValue(State(script: script))
        self.port = port
        self.scheme = scheme
    }

    /// Starts a server playing `script`; with `tls`, HTTP runs inside TLS
    /// with that context's certificate.
    public static func start(_ script: [ServerAction], tls: NIOSSLContext? = nil) async throws -> ScriptedHTTPServer {
        let box = ServerBox()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(ScriptHandler(box: box))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedHTTPServer(script: script, port: channel.localAddress!.port!, scheme: tls == nil ? "http" : "https")
        server.channel.withLock { $0 = channel }
        box.server.withLock { $0 = server }
        return server
    }

    public var url: String { "\(scheme)://127.0.0.1:\(port)" }

    /// Paths of the requests received so far, in order.
    public var received: [String] { state.withLock { $0.received } }
    public var requestCount: Int { state.withLock { $0.received.count } }
    /// When each request of ``received`` arrived.
    public var receivedAt: [ContinuousClock.Instant] { state.withLock { $0.receivedAt } }
    /// The W3C `traceparent` header of each request of ``received``.
    public var traceparents: [String?] { state.withLock { $0.traceparents } }
    /// The `Idempotency-Key` header of each request of ``received``.
    public var idempotencyKeys: [String?] { state.withLock { $0.idempotencyKeys } }
    /// The headers of each request of ``received``, by lowercased name
    /// (the last value of a repeated one).
    public var headers: [[String: String]] { state.withLock { $0.headers } }
    /// The method of each request of ``received``.
    public var methods: [String] { state.withLock { $0.methods } }
    /// The body of each request of ``received``, as received.
    public var bodies: [[UInt8]] { state.withLock { $0.bodies } }
    /// How many connections the client closed while the server held their
    /// request unanswered (`hang`): an attempt the client gave up on.
    public var abandonedHangs: Int { state.withLock { $0.abandonedHangs } }

    /// Returns once the client has closed `count` connections whose
    /// request the server held (see ``abandonedHangs``).
    public func abandonedHangs(atLeast count: Int) async {
        await wait(until: .abandonedHangs, reaches: count)
    }

    /// Returns once `count` requests have arrived, or as soon as the
    /// calling task is cancelled.
    public func requests(atLeast count: Int) async {
        await wait(until: .requests, reaches: count)
    }

    /// Returns once `counter` reaches `count`, or as soon as the calling
    /// task is cancelled (so a driver whose request has ended stops
    /// waiting for a request that will never come).
    private func wait(until counter: Counter, reaches count: Int) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if Task.isCancelled || state.value(of: counter) >= count { return true }
                    state.waiters.append(Waiter(id: id, counter: counter, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }

    /// Resumes the waiters whose count has been reached.
    private static func readyWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let current = state
        let ready = state.waiters.filter { current.value(of: $0.counter) >= $0.count }
        state.waiters.removeAll { current.value(of: $0.counter) >= $0.count }
        return ready.map(\.continuation)
    }

    public func shutdown() async throws {
        let channel = self.channel.withLock { $0 }
        try await channel?.close()
    }

    fileprivate func nextAction(
        for uri: String, method: String, body: [UInt8], traceparent: String?, idempotencyKey: String?,
        headers: [String: String]
    ) -> ServerAction {
        let (action, ready) = state.withLock { state -> (ServerAction, [CheckedContinuation<Void, Never>]) in
            state.received.append(uri)
            state.methods.append(method)
            state.bodies.append(body)
            state.traceparents.append(traceparent)
            state.idempotencyKeys.append(idempotencyKey)
            state.headers.append(headers)
            state.receivedAt.append(.now)
            let action = state.script.isEmpty ? .respond(status: 200) : state.script.removeFirst()
            return (action, Self.readyWaiters(&state))
        }
        for continuation in ready { continuation.resume() }
        return action
    }

    fileprivate func hangAbandoned() {
        let ready = state.withLock { state in
            state.abandonedHangs += 1
            return Self.readyWaiters(&state)
        }
        for continuation in ready { continuation.resume() }
    }

    /// A refused port, kept bound without listening for the rest of the
    /// test process so that no other test's server can take it.
    public static func refusedPort() async throws -> Int {
        try PostgresTestServer.refusedPort()
    }
}

/// Lets handlers reach the server object created after the bootstrap.
private final class ServerBox: Sendable {
    let server = LockedValue<ScriptedHTTPServer?>(nil)
}

private final class ScriptHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: ServerBox
    private var uri = ""
    private var method = ""
    private var body: [UInt8] = []
    private var traceparent: String?
    private var idempotencyKey: String?
    private var headers: [String: String] = [:]
    /// The request on this connection is held unanswered.
    private var hanging = false

    init(box: ServerBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            uri = head.uri
            method = head.method.rawValue
            body = []
            traceparent = head.headers.first(name: "traceparent")
            idempotencyKey = head.headers.first(name: "Idempotency-Key")
            headers = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        case .body(var part):
            body += part.readBytes(length: part.readableBytes) ?? []
        case .end:
            guard let server = box.server.withLock({ $0 }) else { return }
            let action = server.nextAction(
                for: uri, method: method, body: body, traceparent: traceparent, idempotencyKey: idempotencyKey,
                headers: headers)
            if case .hang = action { hanging = true }
            respond(action, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if hanging, let server = box.server.withLock({ $0 }) {
            hanging = false
            server.hangAbandoned()
        }
        context.fireChannelInactive()
    }

    private func respond(_ action: ServerAction, context: ChannelHandlerContext) {
        switch action {
        case .respond(let status, let headers, let body):
            var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.utf8.count))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if !body.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
            }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        case .hang:
            break
        case .closeMidResponse(let status):
            var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status))
            head.headers.add(name: "Content-Length", value: "1000")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let partial = context.channel.allocator.buffer(string: String(repeating: "x", count: 10))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(partial))), promise: nil)
            context.close(promise: nil)
        case .resetMidResponse:
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Length", value: "1000")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let partial = context.channel.allocator.buffer(string: String(repeating: "x", count: 10))
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(partial)))).flatMap { () -> EventLoopFuture<Void> in
                // A zero linger time makes close send RST.
                guard let socket = channel as? any SocketOptionProvider else {
                    return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
                }
                return socket.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            }.whenComplete { _ in channel.close(promise: nil) }
        case .closeWithoutResponse:
            context.close(promise: nil)
        }
    }
}
#endif
