#if GRPC  // the trait; without it this module is empty
import GRPCCore
import Logging
import RetryPolicyCore
import RetryPolicyExecutor
import Tracing

/// A grpc-swift 2 client transport that runs each call under a retry
/// policy: give it to `GRPCClient` in place of the transport it wraps.
///
/// ```swift
/// let transport = RetryingClientTransport(
///     wrapping: try HTTP2ClientTransport.Posix(target: .dns(host: "shop.internal"), transportSecurity: .plaintext),
///     policies: .byName(["shop.Catalog": executor]))
/// try await withGRPCClient(transport: transport) { client in ... }
/// ```
///
/// Retrying lives in the transport, not in a `ClientInterceptor`:
/// grpc-swift runs a call's interceptors inside the one stream the
/// transport opened for it, so an interceptor cannot send an attempt
/// again; a transport opens a new stream per attempt. Interceptors run
/// once per call, outside the retries.
///
/// Each unary and client-streaming call runs through the method's
/// executor (budget, breaker, cooldown, hedging, tracing, telemetry): the
/// transport keeps the request's serialized messages (at most
/// `maxReplayBytes`) and sends them again on each attempt, with
/// `grpc-previous-rpc-attempts` (gRFC A6) on every attempt after the
/// first. An attempt's response is held until its status arrives; the
/// status and the trailers the policy reads (`grpc-retry-pushback-ms`)
/// are its outcome. The caller sees the response of the attempt that
/// counts, a final non-OK status included, or an `RPCError` for why the
/// policy stopped; a call the policy stopped fails with an `RPCError`
/// whose `cause` is the `RetryFailure`. Server-streaming and bidirectional calls, whose
/// responses cannot be held back, are sent once, as they are, with a
/// `GRPCRetryDiagnostic`.
///
/// The call's deadline (`CallOptions.timeout`) covers every attempt and
/// wait: when it passes, or the calling task is cancelled, the attempt or
/// backoff in progress ends at once.
///
/// When grpc-swift's own retry or hedging is on for the same call, each of
/// its attempts runs the whole policy: the transport warns once per method
/// with the amplification (see `GRPCRetryDiagnostic.twoRetryLayers`).
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct RetryingClientTransport<Transport: ClientTransport, C: Clock>: ClientTransport
where C.Duration == Duration {
    public typealias Bytes = Transport.Bytes

    public let transport: Transport
    public var policies: GRPCMethodPolicies<C>
    /// The most bytes of request messages kept to replay a call, and of
    /// response messages held while an attempt is judged; a call past it
    /// fails with `RESOURCE_EXHAUSTED`.
    public var maxReplayBytes: Int
    /// Where set-up problems are warned about, once per method.
    public var logger: Logger
    /// Receives each `GRPCRetryDiagnostic` as it is logged.
    public var diagnostics: (@Sendable (GRPCRetryDiagnostic) -> Void)?
    private let reported = LockedValue(Set<GRPCRetryDiagnostic>())

    /// - Parameters:
    ///   - transport: the transport every attempt is sent on.
    ///   - policies: the policy of each method; a method without one is
    ///     sent once, as it is.
    ///   - maxReplayBytes: the bound on a call's kept request and held
    ///     response messages.
    ///   - logger: where set-up problems are warned about.
    ///   - diagnostics: receives the same problems as values.
    public init(
        wrapping transport: Transport,
        policies: GRPCMethodPolicies<C>,
        maxReplayBytes: Int = 4 * 1024 * 1024,
        logger: Logger = Logger(label: "RetryPolicyGRPC"),
        diagnostics: (@Sendable (GRPCRetryDiagnostic) -> Void)? = nil
    ) {
        self.transport = transport
        self.policies = policies
        self.maxReplayBytes = max(0, maxReplayBytes)
        self.logger = logger
        self.diagnostics = diagnostics
    }

    public var retryThrottle: RetryThrottle? { transport.retryThrottle }

    public func connect() async throws { try await transport.connect() }

    public func beginGracefulShutdown() { transport.beginGracefulShutdown() }

    public func config(forMethod descriptor: MethodDescriptor) -> MethodConfig? {
        transport.config(forMethod: descriptor)
    }

    public func withStream<T: Sendable>(
        descriptor: MethodDescriptor,
        options: CallOptions,
        _ closure: (_ stream: RPCStream<Inbound, Outbound>, _ context: ClientContext) async throws -> T
    ) async throws -> T {
        guard let policy = policies.policy(for: descriptor) else {
            return try await transport.withStream(descriptor: descriptor, options: options, closure)
        }
        if let grpcAttempts = options.executionPolicy?.maxAttempts {
            report(
                .twoRetryLayers(
                    method: descriptor.fullyQualifiedMethod, grpcAttempts: grpcAttempts,
                    policyAttempts: policy.executor.decider.policy.attempts))
        }
        guard let type = descriptor.type, !type.isResponseStreaming else {
            let reason: GRPCRetryDiagnostic.OneAttemptReason = descriptor.type == nil ? .unknownType : .streamingResponse
            report(.oneAttempt(method: descriptor.fullyQualifiedMethod, reason: reason))
            return try await transport.withStream(descriptor: descriptor, options: options, closure)
        }

        let recorder = RequestRecorder<Bytes>(limit: maxReplayBytes)
        let (inbound, responses) = AsyncThrowingStream.makeStream(of: RPCResponsePart<Bytes>.self)
        let ending = CallEnding()
        // The caller's closure gets the context of the first stream opened;
        // it writes the request the first attempt waits for.
        let (contexts, contextSink) = AsyncStream.makeStream(of: ClientContext.self, bufferingPolicy: .bufferingOldest(1))
        let call = RetriedCall(
            transport: transport, descriptor: descriptor, options: options, policy: policy, recorder: recorder,
            contexts: contextSink, maxResponseBytes: maxReplayBytes)
        return try await withThrowingTaskGroup(of: Void.self, returning: T.self) { group in
            group.addTask {
                await call.run(into: responses, ending: ending)
                contextSink.finish()
            }
            var context = ClientContext(descriptor: descriptor, remotePeer: "", localPeer: "")
            for await opened in contexts {
                context = opened
                break
            }
            let stream = RPCStream(
                descriptor: descriptor, inbound: RPCAsyncSequence(wrapping: CallResponses(parts: inbound, ending: ending)),
                outbound: RPCWriter.Closable(wrapping: recorder))
            do {
                let result = try await closure(stream, context)
                group.cancelAll()
                return result
            } catch is CancellationError {
                // As grpc-swift's own transports report a cancelled call.
                group.cancelAll()
                throw RPCError(code: .cancelled, message: "the call was cancelled")
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// Logs `diagnostic` and passes it on, the first time only.
    private func report(_ diagnostic: GRPCRetryDiagnostic) {
        guard reported.withLock({ $0.insert(diagnostic).inserted }) else { return }
        logger.warning("\(diagnostic.description)")
        diagnostics?(diagnostic)
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension RPCExecutionPolicy {
    /// The most attempts grpc-swift's own retry or hedging makes (it
    /// treats more than five as five).
    var maxAttempts: Int {
        min(retry?.maxAttempts ?? hedge?.maxAttempts ?? 1, 5)
    }
}

/// One call's attempts under its policy, in a child task of the call.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct RetriedCall<Transport: ClientTransport, C: Clock>: Sendable where C.Duration == Duration {
    typealias Bytes = Transport.Bytes

    /// gRFC A6: how many attempts of this call were sent before this one.
    static var previousAttemptsKey: String { "grpc-previous-rpc-attempts" }

    let transport: Transport
    let descriptor: MethodDescriptor
    let options: CallOptions
    let policy: GRPCMethodPolicy<C>
    let recorder: RequestRecorder<Bytes>
    let contexts: AsyncStream<ClientContext>.Continuation
    let maxResponseBytes: Int

    /// Runs the attempts and hands the response of the one that counts,
    /// or the error the call ends with, to `responses`, and records the
    /// end in `ending`.
    ///
    /// A call the policy stopped on a non-OK status ends with that status,
    /// its message and trailers as the server sent them, as an `RPCError`
    /// whose `cause` is the `RetryFailure`: a caller can tell why the
    /// policy stopped (attempts spent, the status not retryable, the
    /// budget) from the same error that says what the server answered.
    func run(
        into responses: AsyncThrowingStream<RPCResponsePart<Bytes>, any Error>.Continuation, ending: CallEnding
    ) async {
        var executor = policy.executor
        executor.classifier = ErrorClassifier.grpc.chained(with: executor.classifier)
        let trailerNames = executor.decider.consultedHeaderNames
        let tracer = executor.tracing.flatMap { $0.attemptSpans ? $0.tracer : nil }
        let request = RetryRequest(method: .post, retryability: policy.retryability, endpoint: policy.endpoint)
        do {
            let response = try await executor.runConcurrently(
                request,
                classify: { result in
                    guard case .success(let response) = result else { return nil }
                    return response.outcome(readingTrailers: trailerNames)
                }
            ) { attempt in
                try await send(attempt, tracer: tracer)
            }
            for part in response.parts { responses.yield(part) }
            responses.finish()
            ending.end(with: nil)
        } catch {
            var ended = RPCError(error)
            if let last = error.lastResponse as? GRPCAttemptResponse<Bytes> {
                // The parts before the status as they came; the status as
                // the error it is to the caller, carrying the failure.
                for part in last.parts {
                    if case .status = part { continue }
                    responses.yield(part)
                }
                ended = RPCError(
                    code: RPCError.Code(last.status.code) ?? .unknown, message: last.status.message,
                    metadata: last.trailers, cause: error)
            }
            responses.finish(throwing: ended)
            ending.end(with: ended)
        }
    }

    /// One attempt: a new stream, the whole request, the whole response.
    private func send(_ attempt: AttemptContext, tracer: (any Tracer)?) async throws -> GRPCAttemptResponse<Bytes> {
        try await transport.withStream(descriptor: descriptor, options: options) { stream, context in
            contexts.yield(context)
            var parts: [RPCRequestPart<Bytes>]
            do {
                parts = try await recorder.request()
            } catch {
                throw UnsentRequest(error: error)
            }
            if let first = parts.indices.first, case .metadata(var metadata) = parts[first] {
                if attempt.attempt > 1 {
                    metadata.replaceOrAddString(String(attempt.attempt - 1), forKey: Self.previousAttemptsKey)
                }
                if let tracer, let context = ServiceContext.current {
                    tracer.inject(context, into: &metadata, using: MetadataInjector())
                }
                parts[first] = .metadata(metadata)
            }
            try await stream.outbound.write(contentsOf: parts)
            await stream.outbound.finish()
            return try await GRPCAttemptResponse.read(stream.inbound, limit: maxResponseBytes)
        }
    }
}

/// The caller's request ended in an error, or could not be kept to
/// replay, before an attempt could send it: the call ends with that
/// error, never retried.
struct UnsentRequest: AttemptOutcomeConvertible {
    let error: any Error
    var attemptOutcome: AttemptOutcome { .transport(.cancelled) }
}

/// Writes a trace context into a call's metadata.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct MetadataInjector: Injector {
    func inject(_ value: String, forKey key: String, into metadata: inout Metadata) {
        metadata.replaceOrAddString(value, forKey: key)
    }
}
#endif
