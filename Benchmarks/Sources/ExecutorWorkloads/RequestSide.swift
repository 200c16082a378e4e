import RetryPolicyCore
import RetryPolicyExecutor

// The request every executor benchmark sends, one way per side, shared by
// the benchmarks and `executor-profile` so that both measure the same
// code. Generic over the server, so that each benchmark is specialised
// for it: a `HealthyServer`'s answer is a constant, as a first try's
// operation that does no work would be. Every `send` is inlined into the
// loop that calls it: an async function called out of line costs a frame
// from the task allocator and an executor switch per request, which
// would be most of a first try's cost on either side.

/// What answers the request's attempts.
public protocol StubServer: Sendable {
    /// A server that has not answered yet.
    init()
    /// The next attempt's answer.
    func respond() -> StubResponse
}

/// Answers 200 at once: a first-try success.
public struct HealthyServer: StubServer {
    @inlinable
    public init() {}

    @inlinable
    public func respond() -> StubResponse { .ok }
}

extension FlakyServer: StubServer {}

/// One way of sending the request: through the executor, or through one of
/// the hand-written retry functions of the seeds.
public protocol RequestSide: Sendable {
    /// The last part of a benchmark's name (`engine`, `baseline`,
    /// `baseline-<label>`), and the `executor-profile` argument.
    static var name: String { get }
    func send<Server: StubServer>(to server: Server, using generator: inout SplitMix64) async throws -> StubResponse
}

extension RetryExecutor where C == ImmediateClock {
    /// The executor of the benchmarks: seed 002's policy on the zero-delay
    /// clock.
    public static func benchmark() -> Self {
        RetryExecutor(
            decider: RetryDecider(policy: SeedPolicy.networkingGuide), clock: ImmediateClock(),
            wallClockNow: Timestamp(secondsSince1970: 1_700_000_000))
    }
}

/// The executor's `run` with seed 003's throwing operation: a non-2xx
/// answer is thrown, and `classify` hands its status to the policy. The
/// same operation as `Seed003Side`'s.
public struct EngineSide: RequestSide {
    public static let name = "engine"
    public let executor: RetryExecutor<ImmediateClock>
    public init() { executor = .benchmark() }

    @inlinable @inline(__always)
    public func send<Server: StubServer>(to server: Server, using generator: inout SplitMix64) async throws -> StubResponse {
        try await executor.run(using: &generator, classify: Seed003Request.classify) {
            _ throws(FailedStatus) -> StubResponse in try Seed003Request.check(server.respond())
        }
    }
}

/// The executor's `run` with the answer returned and judged by its status
/// (the form for an HTTP client that returns every response).
public struct EngineReturningSide: RequestSide {
    public static let name = "engine-returning"
    public let executor: RetryExecutor<ImmediateClock>
    public init() { executor = .benchmark() }

    @inlinable @inline(__always)
    public func send<Server: StubServer>(to server: Server, using generator: inout SplitMix64) async throws -> StubResponse {
        try await executor.run(using: &generator) { _ in server.respond() }
    }
}

/// `runConcurrently` (attempts in child tasks when the policy limits
/// them), the answer returned.
public struct EngineConcurrentSide: RequestSide {
    public static let name = "engine-concurrently"
    public let executor: RetryExecutor<ImmediateClock>
    public init() { executor = .benchmark() }

    @inlinable @inline(__always)
    public func send<Server: StubServer>(to server: Server, using generator: inout SplitMix64) async throws -> StubResponse {
        try await executor.runConcurrently(using: &generator) { _ in server.respond() }
    }
}

/// Seed 003's `retry` with the same throwing operation as `EngineSide`.
/// The baseline the executor's targets are set against.
public struct Seed003Side: RequestSide {
    public static let name = "baseline"
    @inlinable public init() {}

    @inlinable @inline(__always)
    public func send<Server: StubServer>(to server: Server, using generator: inout SplitMix64) async throws -> StubResponse {
        try await retry(clock: ImmediateClock()) { () throws(FailedStatus) -> StubResponse in
            try Seed003Request.check(server.respond())
        } strategy: { Seed003Request.strategy($0) }
    }
}

/// Seed 002's `withRetry` and `validate` (untyped throws, a boxed error
/// per failed attempt).
public struct Seed002Side: RequestSide {
    public static let name = "baseline-seed002"
    @inlinable public init() {}

    @inlinable @inline(__always)
    public func send<Server: StubServer>(to server: Server, using generator: inout SplitMix64) async throws -> StubResponse {
        try await withRetry(clock: ImmediateClock()) { try validate(server.respond()) }
    }
}

extension RequestSide {
    /// `count` requests one after another, each to a new server, each
    /// checked to have ended in a 200.
    @inlinable @inline(__always)
    public func send<Server: StubServer>(_ count: Int, to _: Server.Type, using generator: inout SplitMix64) async throws {
        for _ in 0..<count {
            let response = try await send(to: Server(), using: &generator)
            precondition(response.statusCode == 200)
        }
    }
}
