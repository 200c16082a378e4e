#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting

/// Wraps a typed-throwing executor call in a `Result`.
public func capture<T>(_ body: () async throws(RetryFailure) -> T) async -> Result<T, RetryFailure> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension Result where Failure == RetryFailure {
    public var failure: RetryFailure? { if case .failure(let f) = self { f } else { nil } }
}

/// Collects observer events.
public final class EventLog: Sendable {
    private let storage = LockedValue<[RetryEvent]>([])
    public init() {}
    public var events: [RetryEvent] { storage.withLock { $0 } }
    public var observer: RetryObserver { { event in self.storage.withLock { $0.append(event) } } }
    public var waits: [Duration] { events.compactMap { if case .waiting(let d, _) = $0 { d } else { nil } } }
    public var waitCauses: [WaitReason] {
        events.compactMap { if case .waiting(_, let cause) = $0 { cause } else { nil } }
    }
}

/// Drives a request whose waits happen on `clock` while the network is
/// real: before each wait is skipped, the server must have received the
/// requests the scenario expects by then, so no timer fires before the
/// request it guards has reached the server.
///
/// A request that ends before the scenario's last wait (it stopped where
/// the scenario expected a retry) ends the driving too: the steps taken
/// so far are returned rather than waiting for a wait that never comes.
public func drive<T: Sendable>(
    _ clock: ManualClock,
    server: (any ScriptedServer)?,
    requestsBeforeEachAdvance: [Int],
    _ body: @escaping @Sendable () async -> T
) async -> (result: T, steps: [Duration]) {
    await drive(
        clock, requestsBeforeEachAdvance: requestsBeforeEachAdvance,
        requestsSeen: { count in if let server { await server.requests(atLeast: count) } }, body)
}

/// `drive(_:server:requestsBeforeEachAdvance:_:)` for any server:
/// `requestsSeen(count)` returns once the server has received `count`
/// requests, or as soon as the calling task is cancelled.
public func drive<T: Sendable>(
    _ clock: ManualClock,
    requestsBeforeEachAdvance: [Int],
    requestsSeen: @escaping @Sendable (Int) async -> Void,
    _ body: @escaping @Sendable () async -> T
) async -> (result: T, steps: [Duration]) {
    let task = Task { await body() }
    // The request runs in a task of its own; a cancelled driver (a case
    // past its time limit) cancels it, so that a request waiting for a
    // wait nobody will skip ends instead of holding the test run.
    let steps = await withTaskCancellationHandler {
        await advance(clock, requestsBeforeEachAdvance: requestsBeforeEachAdvance, requestsSeen: requestsSeen, until: task)
    } onCancel: {
        task.cancel()
    }
    return (await task.value, steps)
}

/// The clock steps of `drive`, taken until `task` ends.
private func advance<T: Sendable>(
    _ clock: ManualClock,
    requestsBeforeEachAdvance: [Int],
    requestsSeen: @escaping @Sendable (Int) async -> Void,
    until task: Task<T, Never>
) async -> [Duration] {
    await withTaskGroup(of: [Duration]?.self) { group in
        group.addTask {
            var steps: [Duration] = []
            for expected in requestsBeforeEachAdvance {
                await requestsSeen(expected)
                await clock.sleepers(atLeast: 1)
                if Task.isCancelled { break }
                if let step = clock.advanceToNextDeadline() { steps.append(step) }
            }
            return steps
        }
        group.addTask {
            _ = await task.value
            return nil
        }
        var steps: [Duration] = []
        // The driver's steps, however the two end.
        for await result in group {
            if let result { steps = result } else { group.cancelAll() }
        }
        return steps
    }
}

/// RFC 9110 IMF-fixdate for a Unix time, as a server writes `Retry-After`.
public func imfFixdate(_ timestamp: Timestamp) -> String {
    let seconds = timestamp.nanosecondsSince1970 / 1_000_000_000
    let days = Int(seconds / 86_400)
    let secondOfDay = Int(seconds % 86_400)
    // Civil-from-days (Howard Hinnant).
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
}
#endif
