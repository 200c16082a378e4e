#if GRPC  // the trait; these tests need grpc-swift and its NIO transport
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import RetryPolicyCore

/// The test service's methods.
public enum Scripted {
    public static let service = ServiceDescriptor(fullyQualifiedService: "test.Scripted")
    public static let unary = method("Unary", .unary)
    public static let collect = method("Collect", .clientStreaming)
    public static let watch = method("Watch", .serverStreaming)
    /// A unary method the server never registers.
    public static let missing = method("Missing", .unary)

    public static func method(_ name: String, _ type: MethodDescriptor.RPCType?) -> MethodDescriptor {
        var descriptor = MethodDescriptor(service: service, method: name)
        descriptor.type = type
        return descriptor
    }
}

/// What the server answers to one call.
public enum ScriptedReply: Sendable {
    /// OK with this message.
    case ok(String)
    /// OK with these bytes as the message.
    case okBytes([UInt8])
    /// A status, its message and its trailing metadata.
    case fail(RPCError.Code, message: String = "scripted", metadata: Metadata = [:])
    /// No answer until the client cancels the call, or the server shuts
    /// down.
    case hang
}

/// One call the server received.
public struct ReceivedCall: Sendable {
    public var method: String
    public var metadata: Metadata
    public var messages: [[UInt8]]

    /// gRFC A6's count of earlier attempts, as sent.
    public var previousAttempts: String? { metadata.firstString("grpc-previous-rpc-attempts") }
}

extension Metadata {
    /// The first text value under `key`.
    public func firstString(_ key: String) -> String? {
        self[stringValues: key].first(where: { _ in true })
    }
}

/// A grpc-swift 2 server on 127.0.0.1 (a port the system picks) over the
/// NIO HTTP/2 transport, answering each call with the next reply of its
/// script (OK once the script is spent) and recording what it received.
public final class ScriptedGRPCServer: Sendable {
    private struct State {
        var script: [ScriptedReply]
        var received: [ReceivedCall] = []
        /// Calls held unanswered (`hang`) that the client cancelled.
        var abandonedHangs = 0
        var waiters: [Waiter] = []
        var nextWaiterID = 0
        /// Calls that hang until the client cancels them or the server
        /// shuts down, by id.
        var hanging: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextHangID = 0
        var shuttingDown = false

        func value(of counter: Counter) -> Int {
            switch counter {
            case .calls: received.count
            case .abandonedHangs: abandonedHangs
            }
        }

        /// Takes the waiters whose count has been reached.
        mutating func readyWaiters() -> [CheckedContinuation<Void, Never>] {
            let current = self
            let ready = waiters.filter { current.value(of: $0.counter) >= $0.count }
            waiters.removeAll { current.value(of: $0.counter) >= $0.count }
            return ready.map(\.continuation)
        }
    }

    private enum Counter {
        case calls, abandonedHangs
    }

    private struct Waiter {
        var id: Int
        var counter: Counter
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private let state: LockedValue<State>
    private let server: GRPCServer<HTTP2ServerTransport.Posix>
    private let serving: Task<Void, any Error>
    public let port: Int

    private init(
        state: LockedValue<State>, server: GRPCServer<HTTP2ServerTransport.Posix>, serving: Task<Void, any Error>,
        port: Int
    ) {
        self.state = state
        self.server = server
        self.serving = serving
        self.port = port
    }

    public static func start(_ script: [ScriptedReply]) async throws -> ScriptedGRPCServer {
        let state = LockedValue(State(script: script))
        let transport = HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext)
        let server = GRPCServer(transport: transport, services: [Service(state: state)])
        let serving = Task { try await server.serve() }
        let address = try await transport.listeningAddress
        guard let port = address.ipv4?.port else { throw RPCError(code: .internalError, message: "not bound to IPv4") }
        return ScriptedGRPCServer(state: state, server: server, serving: serving, port: port)
    }

    /// Every call received, in order.
    public var received: [ReceivedCall] { state.withLock { $0.received } }
    public var callCount: Int { state.withLock { $0.received.count } }
    /// How many calls held unanswered (`hang`) the client cancelled: an
    /// attempt the client gave up on.
    public var abandonedHangs: Int { state.withLock { $0.abandonedHangs } }

    /// Returns once the server has received `count` calls, or as soon as
    /// the calling task is cancelled.
    public func calls(atLeast count: Int) async {
        await wait(until: .calls, reaches: count)
    }

    /// Returns once the client has cancelled `count` calls the server held
    /// (see ``abandonedHangs``), or as soon as the calling task is
    /// cancelled.
    public func abandonedHangs(atLeast count: Int) async {
        await wait(until: .abandonedHangs, reaches: count)
    }

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

    /// Ends the hanging calls, then stops the server once its calls have
    /// ended.
    public func shutdown() async {
        let hanging = state.withLock { state in
            state.shuttingDown = true
            defer { state.hanging = [:] }
            return Array(state.hanging.values)
        }
        for call in hanging { call.resume() }
        server.beginGracefulShutdown()
        _ = await serving.result
    }

    private struct Service: RegistrableRPCService {
        let state: LockedValue<State>

        func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
            for method in [Scripted.unary, Scripted.collect, Scripted.watch] {
                router.registerHandler(forMethod: method, deserializer: BytesCoder(), serializer: BytesCoder()) {
                    request, context in
                    var messages: [[UInt8]] = []
                    for try await message in request.messages { messages.append(message) }
                    let reply = receive(ReceivedCall(method: method.method, metadata: request.metadata, messages: messages))
                    switch reply {
                    case .ok(let text):
                        return StreamingServerResponse(single: ServerResponse(message: Array(text.utf8)))
                    case .okBytes(let bytes):
                        return StreamingServerResponse(single: ServerResponse(message: bytes))
                    case .fail(let code, let message, let metadata):
                        return StreamingServerResponse(error: RPCError(code: code, message: message, metadata: metadata))
                    case .hang:
                        await hang(context.cancellation)
                        return StreamingServerResponse(error: RPCError(code: .unavailable, message: "shutting down"))
                    }
                }
            }
        }

        /// Holds a call until the client cancels it (counted as abandoned)
        /// or the server shuts down.
        private func hang(_ cancellation: ServerContext.RPCCancellationHandle) async {
            let id = state.withLock { state in
                state.nextHangID += 1
                return state.nextHangID
            }
            await withRPCCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ended = state.withLock { state in
                        if state.shuttingDown || cancellation.isCancelled { return true }
                        state.hanging[id] = continuation
                        return false
                    }
                    if ended { continuation.resume() }
                }
            } onCancelRPC: {
                let (held, ready) = state.withLock { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
                    guard !state.shuttingDown else { return (state.hanging.removeValue(forKey: id), []) }
                    state.abandonedHangs += 1
                    return (state.hanging.removeValue(forKey: id), state.readyWaiters())
                }
                held?.resume()
                for waiter in ready { waiter.resume() }
            }
        }

        private func receive(_ call: ReceivedCall) -> ScriptedReply {
            let (reply, ready) = state.withLock { state in
                state.received.append(call)
                let reply = state.script.isEmpty ? ScriptedReply.ok("done") : state.script.removeFirst()
                return (reply, state.readyWaiters())
            }
            for continuation in ready { continuation.resume() }
            return reply
        }
    }
}
#endif
