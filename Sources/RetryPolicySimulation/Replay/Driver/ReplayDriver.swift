import RetryPolicyCore

/// Replays recorded requests under a policy on simulated time.
///
/// Every recorded request becomes a client that starts when the recording
/// says, under one shared decider (so a budget, breaker or cooldown acts
/// across all of them, in time order). Each runs the request state
/// machine through ``SimulatedRequest``, the driver `simulate` and outage
/// storms use. Its first attempt gets the recorded outcome; a retry,
/// landing later, gets a seeded draw from the ``TrafficModel`` at that
/// time.
///
/// It streams: a recorded request is read only when simulated time is
/// within one model bucket of it, model buckets behind the current time
/// are dropped, and a finished request is forgotten.
public enum ReplayDriver {
    public struct Configuration: Sendable {
        /// Width of one model bucket.
        public var bucket: Duration
        /// Width of one window of the load histogram.
        public var window: Duration
        public var seed: UInt64

        public init(bucket: Duration = .seconds(1), window: Duration = .seconds(1), seed: UInt64 = 1) {
            self.bucket = bucket
            self.window = window
            self.seed = seed
        }
    }

    private struct Event: Comparable {
        var time: Duration
        var client: Int
        static func < (lhs: Event, rhs: Event) -> Bool { (lhs.time, lhs.client) < (rhs.time, rhs.client) }
    }

    private struct Client {
        var request: SimulatedRequest
        var record: RecordedRequest
        var waited: Duration = .zero
        var scheduled: Duration
    }

    /// Replays every request `next` hands out (in order of start time)
    /// under `policy`.
    public static func run(
        policy: Policy, configuration: Configuration, next: () throws -> RecordedRequest?
    ) rethrows -> ReplayRun {
        var run = ReplayRun(policy: policy, window: configuration.window)
        let decider = RetryDecider(policy: policy)
        // Whether a recorded outcome is a success under this policy's rules,
        // without its state (budget, breaker) taking part.
        var stateless = policy
        stateless.budget = nil
        stateless.breaker = nil
        stateless.retryAfter.cooldown = .off
        let classifier = RetryDecider(policy: stateless)
        var generator = SplitMix64(seed: configuration.seed)
        var draws = SplitMix64(seed: configuration.seed &+ 0x9E37_79B9_7F4A_7C15)

        guard let first = try next() else { return run }
        let origin = first.start
        var model = TrafficModel(origin: origin, bucketWidth: configuration.bucket, seed: configuration.seed)
        var arrivals: [RecordedRequest] = []
        var arrivalHead = 0
        var pendingRecord: RecordedRequest? = first
        var lastIngested = Duration.zero
        var sourceEnded = false

        func ingest(_ record: RecordedRequest) {
            model.add(record)
            arrivals.append(record)
            let start = record.start.duration(since: origin)
            lastIngested = start
            run.firstStart = run.firstStart ?? record.start
            run.lastStart = record.start
            run.recordedAttempts += record.recordedAttemptCount
            var time = start
            for _ in 0..<record.undescribedAttempts { ReplayRun.count(time, window: configuration.window, into: &run.recordedLoad) }
            for attempt in record.attempts {
                ReplayRun.count(time, window: configuration.window, into: &run.recordedLoad)
                time += attempt.duration ?? .zero
            }
            let last = record.attempts[record.attempts.count - 1].outcome
            let decision = classifier.decide(
                DecisionInput(outcome: last, attempt: 1, method: record.method, endpoint: record.endpoint, now: record.start))
            if decision.action == .success { run.recordedSucceeded += 1 }
        }
        func pull() throws {
            if let record = pendingRecord {
                pendingRecord = nil
                ingest(record)
                return
            }
            if let record = try next() { ingest(record) } else { sourceEnded = true }
        }

        var clients: [Client?] = []
        var free: [Int] = []
        var active = 0
        var queue = TimeHeap<Event>()
        var periods: [OutageStorm.BreakerPeriod] = []
        func note(_ transition: CircuitBreakerTransition?, at time: Duration) {
            guard let transition else { return }
            if !periods.isEmpty, periods[periods.count - 1].end == nil { periods[periods.count - 1].end = time }
            switch transition {
            case .opened: periods.append(.init(state: .open, start: time, end: nil))
            case .halfOpened: periods.append(.init(state: .halfOpen, start: time, end: nil))
            case .closed: break
            }
        }

        while true {
            if arrivalHead == arrivals.count, !sourceEnded { try pull() }
            let arrivalTime = arrivalHead < arrivals.count ? arrivals[arrivalHead].start.duration(since: origin) : nil
            let eventTime = queue.peek?.time
            guard let now = [arrivalTime, eventTime].compactMap({ $0 }).min() else { break }
            // The model must hold every recorded attempt of the bucket a
            // draw at `now` falls in.
            let horizon = model.bucketEnd(of: now)
            while !sourceEnded, lastIngested < horizon { try pull() }
            model.evict(before: now)
            run.peakHeldBuckets = max(run.peakHeldBuckets, model.heldBuckets)

            let index: Int
            var action: RequestStateMachine.Action
            if let arrivalTime, eventTime.map({ arrivalTime <= $0 }) ?? true {
                let record = arrivals[arrivalHead]
                arrivalHead += 1
                if arrivalHead > 4096, arrivalHead * 2 > arrivals.count {
                    arrivals.removeFirst(arrivalHead)
                    arrivalHead = 0
                }
                var request = SimulatedRequest(
                    machine: RequestStateMachine(
                        decider: decider, request: RetryRequest(method: record.method, endpoint: record.endpoint),
                        keepsHistory: false, concurrentAttempts: true),
                    startedAt: arrivalTime, origin: origin)
                action = request.start()
                note(request.machine.breakerTransition, at: arrivalTime)
                index = free.popLast() ?? clients.count
                let client = Client(request: request, record: record, scheduled: arrivalTime)
                if index == clients.count { clients.append(client) } else { clients[index] = client }
                run.requests += 1
                active += 1
                run.peakActiveRequests = max(run.peakActiveRequests, active)
            } else {
                let event = queue.pop()!
                index = event.client
                guard clients[index]?.scheduled == event.time else { continue }
                action = clients[index]!.request.advance(using: &generator)
                note(clients[index]!.request.machine.breakerTransition, at: event.time)
            }
            if case .wait(let delay, let reason) = action {
                run.waits[reason, default: 0] += 1
                clients[index]!.waited += delay
            }
            let record = clients[index]!.record
            let finished = clients[index]!.request.perform(action) { start in
                run.attempts += 1
                ReplayRun.count(start.at, window: configuration.window, into: &run.load)
                let answer: RecordedAttempt
                if start.number == 1 {
                    answer = record.attempts[0]
                } else {
                    answer = model.draw(endpoint: record.endpoint, at: start.at, using: &draws) ?? record.attempts[0]
                }
                return ScriptedResponse(outcome: answer.outcome).resolve(latency: answer.duration ?? .zero, timeLimit: start.timeLimit)
            }
            switch finished {
            case .none:
                let nextTime = clients[index]!.request.nextEvent!
                clients[index]!.scheduled = nextTime
                queue.push(Event(time: nextTime, client: index))
                continue
            case .succeed?:
                run.succeeded += 1
            case .fail(let failure)?:
                run.failures[failure.reason, default: 0] += 1
                if clients[index]!.request.machine.rejectedByCooldown { run.rejectedByCooldown += 1 }
                if clients[index]!.request.machine.rejectedByBreaker { run.rejectedByBreaker += 1 }
            default:
                preconditionFailure("perform returns only the action that ends the request")
            }
            run.waitHistogram.add(clients[index]!.waited)
            run.finishedAt = max(run.finishedAt, clients[index]!.request.now)
            clients[index] = nil
            free.append(index)
            active -= 1
        }
        run.breakerPeriods = periods
        return run
    }
}
