import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

/// A recording built in code: one request every `spacing`, answered by
/// `answer(index)`.
func recording(
    count: Int, spacing: Duration = .milliseconds(100), endpoint: (Int) -> String = { _ in "/v1/search" },
    answer: (Int) -> RecordedAttempt
) -> [RecordedRequest] {
    let origin = Timestamp(secondsSince1970: 1_763_388_000)
    return (0..<count).map { index in
        RecordedRequest(
            start: origin + spacing * index, method: .get, endpoint: endpoint(index), attempts: [answer(index)],
            location: SourceLocation(file: "rec", line: index + 1, column: 1))
    }
}

func replay(_ policy: Policy, _ records: [RecordedRequest], seed: UInt64 = 1, bucket: Duration = .seconds(1)) -> ReplayRun {
    var index = 0
    // The records are in memory: nothing throws.
    return try! ReplayDriver.run(policy: policy, configuration: .init(bucket: bucket, window: .seconds(1), seed: seed)) {
        defer { index += 1 }
        return index < records.count ? records[index] : nil
    }
}

@Suite("Replay")
struct ReplayDriverTests {
    /// 100 ms apart: requests 100-199 (10 s to 20 s) meet an outage.
    static func outage(_ index: Int) -> RecordedAttempt {
        RecordedAttempt(outcome: (100..<200).contains(index) ? .status(503) : .status(200), duration: .milliseconds(20))
    }

    @Test("a policy of one attempt sends exactly the recorded requests, whatever they met")
    func singleAttemptSendsTheRecording() async {
        await propertyCheck(count: 100, input: Gen.int(in: 0...5).array(of: 1...60), Gen.int(in: 1...2_000), Gen.uint64()) { codes, spacing, seed in
            let outcomes: [AttemptOutcome] = [.status(200), .status(503), .status(429), .transport(.timeout), .status(404), .transport(.connectionLost)]
            let records = recording(count: codes.count, spacing: .milliseconds(spacing)) { index in
                RecordedAttempt(outcome: outcomes[codes[index]], duration: .milliseconds(codes[index] * 10))
            }
            var policy = TestPolicies.tmdb()
            policy.attempts = 1
            let run = replay(policy, records, seed: seed)
            #expect(run.requests == codes.count)
            #expect(run.attempts == codes.count)
            #expect(run.recordedAttempts == codes.count)
            #expect(run.succeeded == run.recordedSucceeded)
            #expect(run.load == run.recordedLoad)
        }
    }

    @Test("retries land later and draw from the recording then: a wait past the outage succeeds, a short one does not")
    func retriesDrawFromLaterTimes() {
        let records = recording(count: 300, answer: Self.outage)
        var quick = TestPolicies.tmdb(jitter: .none)
        quick.backoff = Backoff(initial: .milliseconds(100), max: .milliseconds(100), multiplier: 1, jitter: .none)
        var patient = quick
        patient.attempts = 2
        patient.backoff = Backoff(initial: .seconds(15), max: .seconds(15), multiplier: 1, jitter: .none)
        let quickRun = replay(quick, records)
        let patientRun = replay(patient, records)
        #expect(quickRun.recordedSucceeded == 200)
        // 100 ms waits: only the requests in the outage's last 300 ms get out.
        #expect(quickRun.succeeded < 210, "\(quickRun.succeeded)")
        #expect(quickRun.failures[.attemptsExhausted] ?? 0 > 90)
        // 15 s waits land after the outage: every request succeeds.
        #expect(patientRun.succeeded == 300)
        #expect(patientRun.attempts == 400)
        #expect(patientRun.waitPercentile(0.99) >= .seconds(14))
        #expect(patientRun.waitPercentile(0.5) == .zero)
    }

    @Test("one budget acts across every replayed request, in time order")
    func sharedBudget() {
        let records = recording(count: 300, answer: Self.outage)
        var policy = TestPolicies.tmdb(jitter: .none)
        policy.budget = RetryBudgetConfiguration(capacity: 10, retryCost: 5, timeoutRetryCost: 5, successRefund: 1)
        let budgeted = replay(policy, records)
        policy.budget = nil
        let unbudgeted = replay(policy, records)
        #expect(budgeted.budgetStops > 50, "\(budgeted.failures)")
        #expect(budgeted.attempts < unbudgeted.attempts)
        #expect(unbudgeted.budgetStops == 0)
    }

    @Test("one breaker acts across every replayed request and its periods are reported")
    func sharedBreaker() {
        let records = recording(count: 300, answer: Self.outage)
        var policy = TestPolicies.tmdb(jitter: .none)
        policy.breaker = CircuitBreakerConfiguration(minimumCalls: 10, breakDuration: .seconds(2), halfOpenProbes: 1)
        let run = replay(policy, records)
        #expect(run.breakerOpenings >= 1)
        #expect(run.rejectedByBreaker > 0)
        #expect((run.failures[.circuitOpen] ?? 0) > 0)
        #expect(run.breakerPeriods.first.map { $0.start >= .seconds(10) } == true)
    }

    @Test("a draw comes from the request's endpoint at that time, else from every endpoint then")
    func drawsByEndpoint() {
        // /a always fails, /b always succeeds; retries of /a must fail.
        let records = recording(count: 200, endpoint: { $0 % 2 == 0 ? "/a" : "/b" }) { index in
            RecordedAttempt(outcome: index % 2 == 0 ? .status(503) : .status(200), duration: .zero)
        }
        let run = replay(TestPolicies.tmdb(), records)
        #expect(run.succeeded == 100)
        #expect(run.failures[.attemptsExhausted] == 100)
        var model = TrafficModel(origin: records[0].start, bucketWidth: .seconds(1), seed: 1)
        model.add(records[0])
        var generator = SplitMix64(seed: 1)
        #expect(model.draw(endpoint: "/unseen", at: .milliseconds(500), using: &generator)?.outcome == .status(503))
        model.evict(before: .seconds(5))
        #expect(model.heldBuckets == 0)
        #expect(model.draw(endpoint: "/a", at: .seconds(9), using: &generator)?.outcome == .status(503), "the last bucket answers after the recording")
    }

    @Test("memory follows the time window, not the recording's length")
    func boundedMemory() {
        var policy = TestPolicies.tmdb()
        policy.timeouts = TimeoutBudget(total: .seconds(10))
        let short = replay(policy, recording(count: 2_000, spacing: .milliseconds(10), answer: { RecordedAttempt(outcome: $0 % 3 == 0 ? .status(503) : .status(200), duration: .milliseconds(5)) }))
        let long = replay(policy, recording(count: 40_000, spacing: .milliseconds(10), answer: { RecordedAttempt(outcome: $0 % 3 == 0 ? .status(503) : .status(200), duration: .milliseconds(5)) }))
        #expect(long.requests == 40_000)
        #expect(long.peakHeldBuckets <= 3)
        // Active requests are bounded by the arrival rate times the deadline.
        #expect(long.peakActiveRequests <= 1_000)
        #expect(long.peakActiveRequests < short.peakActiveRequests * 2)
    }

    @Test("the same seed replays the same; another seed draws differently")
    func seeded() {
        let records = recording(count: 300, answer: { RecordedAttempt(outcome: $0 % 2 == 0 ? .status(503) : .status(200), duration: .milliseconds(3)) })
        let policy = TestPolicies.tmdb()
        let first = replay(policy, records, seed: 7)
        let again = replay(policy, records, seed: 7)
        let other = replay(policy, records, seed: 8)
        #expect(first.attempts == again.attempts && first.succeeded == again.succeeded && first.load == again.load)
        #expect(first.attempts != other.attempts || first.load != other.load || first.succeeded != other.succeeded)
    }
}

@Suite("Replay report")
struct ReplayReportTests {
    @Test("--fail-if: the grammar, its errors, and each metric against a baseline and the recording")
    func failConditions() throws {
        let parsed = try FailCondition.parse(" success-rate-drop >= 1.5% ").get()
        #expect(parsed.metric == .successRateDrop && parsed.comparison == .greaterOrEqual && parsed.threshold == 1.5)
        #expect(try FailCondition.parse("wait-p99>2s").get().threshold == 2000)
        guard case .failure(let unknown) = FailCondition.parse("amplify>2") else { Issue.record("accepted"); return }
        #expect(unknown.message.contains("amplification"))
        guard case .failure(let value) = FailCondition.parse("amplification>two") else { Issue.record("accepted"); return }
        #expect(value.column == 15)
        guard case .failure(let noOperator) = FailCondition.parse("amplification=2") else { Issue.record("accepted"); return }
        #expect(noOperator.message.contains("METRIC>VALUE"))

        let records = recording(count: 300, answer: ReplayDriverTests.outage)
        var single = TestPolicies.tmdb()
        single.attempts = 1
        let baseline = replay(single, records)
        let run = replay(TestPolicies.tmdb(), records)
        let conditions = try ["amplification>1.2", "amplification>5", "success-rate<60", "success-rate-drop>0", "attempts-ratio>1", "peak-ratio>=1", "wait-p50>1s"]
            .map { try FailCondition.parse($0).get() }
        let report = ReplayReport(run: run, baseline: baseline, inputs: [.init(path: "rec", format: .jsonl, requests: 300, warnings: 0)], seed: 1, conditions: conditions)
        #expect(report.failedConditions.map(\.text) == ["amplification>1.2", "attempts-ratio>1", "peak-ratio>=1"])
        #expect(report.text.contains("FAIL amplification>1.2"))
        #expect(report.text.contains("pass amplification>5"))
        // Without a baseline the drop is measured from the recording.
        let alone = ReplayReport(run: baseline, baseline: nil, inputs: [], seed: 1, conditions: [try FailCondition.parse("success-rate-drop>0").get()])
        #expect(alone.failedConditions.isEmpty)
    }

    @Test("the forms: text and Markdown side by side, JSON with every number, SVG with both lines")
    func forms() throws {
        let records = recording(count: 300, answer: ReplayDriverTests.outage)
        var single = TestPolicies.tmdb()
        single.name = "one|attempt"
        single.attempts = 1
        let report = ReplayReport(
            run: replay(TestPolicies.tmdb(), records), baseline: replay(single, records),
            inputs: [.init(path: "rec", format: .jsonl, requests: 300, warnings: 2)], seed: 1)
        #expect(report.text.contains("replay of 300 recorded requests from 1 file, 2025-11-17T14:00:00.000Z to 2025-11-17T14:00:29.900Z"))
        #expect(report.text.contains("2 lines skipped"))
        #expect(report.text.split(separator: "\n")[1].contains("baseline one|attempt"))
        #expect(report.markdown.contains("| requests | 300 | 300 | 300 |"))
        #expect(report.markdown.contains("baseline one\\|attempt"))
        let json = report.json.rendered()
        #expect(json.contains("\"amplification\""))
        #expect(json.contains("\"baseline\": {"))
        #expect(json.contains("\"first_start\": \"2025-11-17T14:00:00.000Z\""))
        let svg = report.svg
        #expect(svg.split(separator: "\n").filter { $0.hasPrefix("<polyline") }.count == 2)
        #expect(svg.contains("recorded (300)"))
        #expect(svg.hasPrefix("<svg") && svg.hasSuffix("</svg>\n"))
    }
}

@Suite("Replay's Retry-After dates")
struct ReplayRetryAfterTests {
    @Test("a Retry-After HTTP-date is the delay it meant when the response was sent")
    func httpDate() {
        // Sent at 14:00:00.5 (started 14:00:00, took 500 ms), asking for 14:00:03.
        let record = RecordedRequest(
            start: Timestamp(secondsSince1970: 1_763_388_000), method: .get, endpoint: "/",
            attempts: [RecordedAttempt(
                outcome: .response(status: 503, headers: ["Retry-After": "Mon, 17 Nov 2025 14:00:03 GMT", "Retry-After-Ms": "250"]),
                duration: .milliseconds(500))],
            location: SourceLocation(file: "rec", line: 1, column: 1))
        let relative = RecordedArrivals.relativeRetryAfter(record)
        #expect(relative.attempts[0].outcome == .response(status: 503, headers: ["Retry-After": "3", "Retry-After-Ms": "250"]))
        // A policy honouring it waits 3 s, not the years since the date.
        var policy = TestPolicies.tmdb()
        policy.attempts = 2
        let run = replay(policy, [record])
        #expect(run.waitPercentile(0.5) >= .seconds(2) && run.waitPercentile(0.5) <= .seconds(4), "\(run.waitPercentile(0.5))")
    }
}
