/// How long a test waits for something done in the background (a
/// notification, a refund flush, a reconnection, another process's write)
/// before it fails. Generous on purpose: the whole test suite runs at once
/// on a few threads, so a background task can wait many seconds for its
/// turn on a loaded machine.
/// A wait returns as soon as its condition holds; how fast things arrive is
/// measured by the fleet benchmark (docs/performance.md), not bounded here.
public let patience: Duration = .seconds(60)

/// Polls `condition` every 2 ms for at most `limit`; returns the time it
/// took, or `nil` if it never held.
public func waitFor(_ limit: Duration = patience, _ condition: () -> Bool) async -> Duration? {
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < limit {
        if condition() { return clock.now - start }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition() ? clock.now - start : nil
}
