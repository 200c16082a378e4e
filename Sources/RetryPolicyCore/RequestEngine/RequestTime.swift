/// A moment in the life of a request, as a driver reports it: the time
/// since the request started, on a monotonic clock, and the wall-clock time
/// (needed for HTTP-date `Retry-After` values and shared cooldowns).
public struct RequestTime: Hashable, Sendable {
    /// Time since the request started.
    public var elapsed: Duration
    public var wall: Timestamp

    public init(elapsed: Duration, wall: Timestamp) {
        self.elapsed = elapsed
        self.wall = wall
    }

    /// The moment `offset` after the request started at `origin`.
    public init(_ offset: Duration, since origin: Timestamp) {
        elapsed = offset
        wall = origin + offset
    }
}
