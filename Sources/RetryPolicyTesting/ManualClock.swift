import RetryPolicyCore

/// A clock that moves only when told to, for testing code that waits.
///
/// Sleepers are suspended until a test calls ``advance(by:)`` past their
/// deadline, so a test of a 30-second backoff runs in microseconds and
/// asserts the exact delay. A test typically starts the code under test in
/// a task, awaits ``sleepers(atLeast:)`` to know it is waiting, checks
/// ``nextDeadline``, then advances.
///
/// Sleeping honours task cancellation immediately, like `ContinuousClock`.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock was created.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Ids cancelled before their continuation was registered.
        var cancelledEarly: Set<Int> = []
        var sleepWaiters: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWaiterID = 0
        var totalSleeps = 0
    }

    private let state = LockedValue(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.values.filter { $0.continuation != nil }.count } }

    /// How many sleeps have started since the clock was created (including
    /// ones that returned at once).
    public var totalSleeps: Int { state.withLock { $0.totalSleeps } }

    /// The earliest deadline of a sleeping task.
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.values.filter { $0.continuation != nil }.map(\.deadline).min() }
    }

    /// How many sleeping tasks share the earliest deadline, so that
    /// ``advanceToNextDeadline()`` would wake them together. A test that
    /// follows events one instant at a time can tell from it when two
    /// things happen at once.
    public var sleepersAtNextDeadline: Int {
        state.withLock { state in
            let sleeping = state.sleepers.values.filter { $0.continuation != nil }
            guard let earliest = sleeping.map(\.deadline).min() else { return 0 }
            return sleeping.count { $0.deadline == earliest }
        }
    }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: Int? = state.withLock { state in
            state.totalSleeps += 1
            if deadline <= state.now { return nil }
            let id = state.nextID
            state.nextID += 1
            return id
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .some(CancellationError()) }
                    if deadline <= state.now { return .some(nil) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    Self.notifySleepWaiters(&state)
                    return .none
                }
                switch resumeNow {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper.continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a manual clock cannot go back")
        let due: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let ids = state.sleepers.filter { $0.value.deadline <= now }.keys
            return ids.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }

    /// Advances exactly to the earliest sleeper's deadline and returns how
    /// far that was; `nil` if nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Duration? {
        guard let deadline = nextDeadline else { return nil }
        let step = now.duration(to: deadline)
        advance(by: max(step, .zero))
        return step
    }

    /// Returns once at least `count` tasks are sleeping, or as soon as the
    /// calling task is cancelled (so a test whose time limit expired ends
    /// instead of waiting for a sleeper that never comes).
    public func sleepers(atLeast count: Int) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if Task.isCancelled { return true }
                    if state.sleepers.values.count(where: { $0.continuation != nil }) >= count { return true }
                    state.sleepWaiters.append((id, count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.sleepWaiters.firstIndex { $0.id == id }.map { state.sleepWaiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }

    private static func notifySleepWaiters(_ state: inout State) {
        let sleeping = state.sleepers.values.count(where: { $0.continuation != nil })
        var remaining: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        for waiter in state.sleepWaiters {
            if sleeping >= waiter.count { waiter.continuation.resume() } else { remaining.append(waiter) }
        }
        state.sleepWaiters = remaining
    }
}
