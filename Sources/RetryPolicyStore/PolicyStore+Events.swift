import RetryPolicyCore

extension PolicyStore {
    /// What the store did: every reload (with its cause, also when nothing
    /// changed) and every change of ``watchMode``.
    public enum Event: Hashable, Sendable {
        case reloaded(ReloadReport)
        case watchModeChanged(WatchMode)
    }

    /// A stream of the store's ``Event``s from now on, until the returned
    /// stream is dropped. A slow consumer loses the oldest events beyond
    /// 256; the store never waits for a consumer.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = subscribers.withLock { subscribers in
            defer { subscribers.next += 1 }
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: Event) {
        subscribers.withLock { subscribers in
            for continuation in subscribers.continuations.values { continuation.yield(event) }
        }
    }

    /// The streams of ``events()`` still held.
    struct EventSubscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    }
}
