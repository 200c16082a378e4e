import NIOCore
import NIOPosix

/// A TCP proxy on 127.0.0.1 that holds every chunk for `delay` in each
/// direction: a database `2 × delay` away on a machine where it is really
/// a loopback connection away. The benchmarks cannot use the test
/// targets' proxy (SwiftPM does not export test targets), hence this copy.
public final class LatencyProxy: Sendable {
    public let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    /// Listens on a free loopback port and forwards each connection to
    /// `127.0.0.1:targetPort`.
    public static func start(to targetPort: Int, delay: Duration) async throws -> LatencyProxy {
        let (seconds, attoseconds) = delay.components
        let hold = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { client in
                // The upstream connection shares the client's event loop, so
                // both directions are handled on one thread, in order.
                ClientBootstrap(group: client.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMapThrowing { upstream in
                        try upstream.pipeline.syncOperations.addHandler(DelayedForwarder(to: client, delay: hold))
                        try client.pipeline.syncOperations.addHandler(DelayedForwarder(to: upstream, delay: hold))
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else { throw ProxyError.noPort }
        return LatencyProxy(port: port, channel: channel)
    }

    public func stop() async {
        try? await channel.close()
    }

    public enum ProxyError: Error { case noPort }
}

/// Writes what one side reads to the other side, `delay` later.
private final class DelayedForwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let target: any Channel
    let delay: TimeAmount

    init(to target: any Channel, delay: TimeAmount) {
        self.target = target
        self.delay = delay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let target = self.target
        context.eventLoop.scheduleTask(in: delay) { target.writeAndFlush(buffer, promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let target = self.target
        context.eventLoop.scheduleTask(in: delay) { target.close(promise: nil) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
