import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting

/// A response as the executor sees it.
struct FakeResponse: RetryableResponse, Hashable {
    var statusCode: Int
    var headers: [String: String] = [:]
    var body: String = ""

    func headerValue(named name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

/// One scripted step of a fake server.
enum Step: Sendable {
    case respond(FakeResponse)
    case fail(any Error & Sendable)
    /// Never answers until cancelled (a server slower than any timeout).
    case hang
}

/// An operation that plays a script, one step per attempt, and counts how
/// often it ran and how often it was cancelled.
final class ScriptedOperation: Sendable {
    private struct State {
        var steps: [Step]
        var calls = 0
        var cancellations = 0
        var contexts: [AttemptContext] = []
    }
    private let state: LockedValue<State>

    init(_ steps: [Step]) { state = LockedValue(State(steps: steps)) }
    convenience init(statuses: [Int]) { self.init(statuses.map { .respond(FakeResponse(statusCode: $0)) }) }

    var calls: Int { state.withLock { $0.calls } }
    var cancellations: Int { state.withLock { $0.cancellations } }
    var contexts: [AttemptContext] { state.withLock { $0.contexts } }

    @Sendable func callAsFunction(_ context: AttemptContext) async throws -> FakeResponse {
        let step: Step = state.withLock { state in
            state.calls += 1
            state.contexts.append(context)
            return state.steps.isEmpty ? .respond(FakeResponse(statusCode: 200)) : state.steps.removeFirst()
        }
        switch step {
        case .respond(let response): return response
        case .fail(let error): throw error
        case .hang:
            do {
                // Suspends until the attempt is cancelled.
                try await ManualClock().sleep(for: .seconds(1_000_000))
            } catch {
                state.withLock { $0.cancellations += 1 }
                throw error
            }
            throw CancellationError()
        }
    }
}

/// Collects observer events.
final class EventLog: Sendable {
    private let storage = LockedValue<[RetryEvent]>([])
    var events: [RetryEvent] { storage.withLock { $0 } }
    var observer: RetryObserver { { event in self.storage.withLock { $0.append(event) } } }
    var waits: [Duration] {
        events.compactMap { if case .waiting(let d, _) = $0 { d } else { nil } }
    }
    var waitCauses: [WaitReason] {
        events.compactMap { if case .waiting(_, let cause) = $0 { cause } else { nil } }
    }

    /// Returns once `count` waits have been announced.
    func waits(atLeast count: Int) async {
        while waits.count < count { await Task.yield() }
    }
}

/// Runs `body` in a task and, each time the task sleeps on `clock`,
/// advances the clock to the sleeper's deadline; returns the steps taken.
/// `sleeps` is how many waits the scenario has.
func drive<T: Sendable>(
    _ clock: ManualClock,
    sleeps: Int,
    _ body: @escaping @Sendable () async -> T
) async -> (result: T, steps: [Duration]) {
    let task = Task { await body() }
    var steps: [Duration] = []
    for _ in 0..<sleeps {
        await clock.sleepers(atLeast: 1)
        if let step = clock.advanceToNextDeadline() { steps.append(step) }
    }
    return (await task.value, steps)
}

extension Result where Failure == RetryFailure {
    var failure: RetryFailure? { if case .failure(let f) = self { f } else { nil } }
}

/// Wraps a typed-throwing executor call in a `Result`.
func capture<T>(_ body: () async throws(RetryFailure) -> T) async -> Result<T, RetryFailure> {
    do { return .success(try await body()) } catch { return .failure(error) }
}
