import RetryPolicyCore

/// One attempt against its time limit.
extension RetryExecutor {
    @usableFromInline
    enum AttemptResult<Value> {
        case value(Value)
        case failure(any Error)
        case timedOut

        @inlinable
        init<Failure>(_ result: Result<Value, Failure>) {
            switch result {
            case .success(let value): self = .value(value)
            case .failure(let error): self = .failure(error)
            }
        }
    }

    /// Runs one attempt with a time limit: races it against a timer on
    /// `clock` and cancels whichever loses. (Without a limit the loop calls
    /// the operation itself.)
    @inlinable @inline(never)
    func perform<Value: Sendable>(
        _ operation: @Sendable (AttemptContext) async throws -> Value,
        context: AttemptContext,
        limit: Duration,
        startedAt: Duration
    ) async -> AttemptResult<Value> {
        let deadline = instant(at: startedAt + limit)
        let clock = self.clock
        return await withoutActuallyEscaping(operation) { escapable in
            await withTaskGroup(of: (isTimer: Bool, result: AttemptResult<Value>).self) { group in
                group.addTask {
                    do { return (false, .value(try await escapable(context))) } catch { return (false, .failure(error)) }
                }
                group.addTask {
                    do {
                        try await clock.sleep(until: deadline, tolerance: nil)
                        return (true, .timedOut)
                    } catch {
                        return (true, .failure(error))
                    }
                }
                var outcome: AttemptResult<Value> = .timedOut
                while let next = await group.next() {
                    // A timer that was cancelled is not a result: only the
                    // operation's answer or the timer firing counts.
                    if next.isTimer, case .failure = next.result { continue }
                    outcome = next.result
                    break
                }
                group.cancelAll()
                return outcome
            }
        }
    }
}

extension RetryExecutor.AttemptResult: Sendable where Value: Sendable {}
