#if GRPC  // the trait; these tests need grpc-swift, whose NIO transport brings SwiftNIO
import NIOCore
import NIOPosix
import RetryPolicyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP relay on 127.0.0.1 (a port the system picks) in front of a
/// server, which can reset the client connections through it: a gRPC
/// server cannot drop its own connection in the middle of a call, the
/// relay drops it for the server.
final class ConnectionRelay: Sendable {
    private let listener: any Channel
    private let clientConnections: LockedValue<[any Channel]>
    let port: Int

    private init(listener: any Channel, clientConnections: LockedValue<[any Channel]>, port: Int) {
        self.listener = listener
        self.clientConnections = clientConnections
        self.port = port
    }

    /// Starts a relay to the server on 127.0.0.1 at `serverPort`.
    static func start(to serverPort: Int) async throws -> ConnectionRelay {
        let clientConnections = LockedValue<[any Channel]>([])
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { client in
                ClientBootstrap(group: client.eventLoop)
                    .connect(host: "127.0.0.1", port: serverPort)
                    .flatMapThrowing { server in
                        // Both channels run on the client's event loop.
                        try client.pipeline.syncOperations.addHandler(Forwarder(to: server))
                        try server.pipeline.syncOperations.addHandler(Forwarder(to: client))
                        clientConnections.withLock { $0.append(client) }
                    }
            }
        let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        guard let port = listener.localAddress?.port else { throw ChannelError.operationUnsupported }
        return ConnectionRelay(listener: listener, clientConnections: clientConnections, port: port)
    }

    /// Resets every client connection (RST rather than FIN); returns once
    /// they are closed, so that nothing the server sends after this
    /// reaches the client.
    func resetClientConnections() async {
        let connections = clientConnections.withLock { connections in
            defer { connections = [] }
            return connections
        }
        for connection in connections {
            // A zero linger time makes close send RST.
            let reset = (connection as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            _ = try? await reset?.get()
            _ = try? await connection.close().get()
        }
    }

    func close() async {
        _ = try? await listener.close().get()
        await resetClientConnections()
    }
}

/// Writes what one side of a relayed connection reads to the other, and
/// closes the other when its own side closes.
private final class Forwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: any Channel

    init(to peer: any Channel) { self.peer = peer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
#endif
