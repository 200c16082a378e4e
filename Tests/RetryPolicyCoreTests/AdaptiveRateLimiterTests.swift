import PropertyBased
import RetryPolicyCore
import Testing

@Suite("Adaptive rate limiter")
struct AdaptiveRateLimiterTests {
    static func at(_ seconds: Double) -> Timestamp {
        Timestamp(nanosecondsSince1970: Int64((seconds * 1e9).rounded()))
    }

    /// Whether `decision` is a wait of `expected`, to the microsecond
    /// (the rates are floating point).
    static func waits(_ decision: AdaptiveRateLimiter.Decision, _ expected: Duration) -> Bool {
        guard case .wait(let wait) = decision else { return false }
        return abs((wait - expected) / .microseconds(1)) < 1
    }

    @Test("Off until the first throttling response: every attempt is sent at once")
    func offUntilThrottled() {
        let limiter = AdaptiveRateLimiter(configuration: .aws, start: Self.at(0))
        for step in 0..<50 {
            #expect(limiter.admit(at: Self.at(Double(step) * 0.01)) == .send)
            limiter.record(throttled: false, at: Self.at(Double(step) * 0.01 + 0.005))
        }
        #expect(!limiter.isEnabled)
    }

    @Test("After a throttle at the minimum rate, attempts queue two seconds apart")
    func pacesAtMinimumRate() {
        let limiter = AdaptiveRateLimiter(configuration: .aws, start: Self.at(0))
        // Nothing measured yet: the rate falls to the minimum, 0.5 per second.
        limiter.record(throttled: true, at: Self.at(0.1))
        #expect(limiter.isEnabled)
        #expect(limiter.snapshot.fillRate == 0.5)
        // The bucket filled for 0.1 s at 1 per second before the throttle:
        // 0.1 token, so the first attempt waits 1.8 s, the next 2 s more.
        #expect(Self.waits(limiter.admit(at: Self.at(0.1)), .milliseconds(1800)))
        #expect(Self.waits(limiter.admit(at: Self.at(0.1)), .milliseconds(3800)))
        // Once the reserved tokens are paid, a later attempt waits its own 2 s.
        #expect(Self.waits(limiter.admit(at: Self.at(3.9)), .milliseconds(2000)))
    }

    @Test("An attempt that would wait beyond the maximum is refused and reserves nothing")
    func refusesBeyondMaximumWait() {
        var configuration = AdaptiveRateLimit.aws
        configuration.maximumWait = .seconds(2)
        let limiter = AdaptiveRateLimiter(configuration: configuration, start: Self.at(0))
        limiter.record(throttled: true, at: Self.at(0))
        #expect(Self.waits(limiter.admit(at: Self.at(0)), .seconds(2)))
        #expect(limiter.admit(at: Self.at(0)) == .refuse)
        #expect(limiter.admit(at: Self.at(0)) == .refuse)
        // Refusals took nothing: two seconds on, one token is back.
        #expect(Self.waits(limiter.admit(at: Self.at(2)), .seconds(2)))
    }

    @Test("Throttling is recognised by the configured error kinds")
    func throttlingKinds() {
        let limiter = AdaptiveRateLimiter(configuration: .aws, start: Self.at(0))
        limiter.record(failure: .status5xx, at: Self.at(1))
        #expect(!limiter.isEnabled)
        limiter.record(failure: .status429, at: Self.at(2))
        #expect(limiter.isEnabled)
    }

    @Test("Without a start, the clock starts at the first attempt or response")
    func lazyStart() {
        let limiter = AdaptiveRateLimiter(configuration: .aws)
        limiter.record(throttled: true, at: Self.at(1_000))
        // The bucket was created empty at the throttle: a full 2 s wait.
        #expect(Self.waits(limiter.admit(at: Self.at(1_000)), .seconds(2)))
    }

    @Test("CUBIC: the cut is β of the sending rate, and the curve is back at W after K seconds")
    func cubicShape() {
        var cubic = CubicRateCalculator(lastMaxRate: 0, lastThrottle: Self.at(0))
        #expect(cubic.rateAfterThrottle(sendingAt: 10, at: Self.at(5)) == 7)
        // K = ∛(10 · 0.3 / 0.4) = ∛7.5
        #expect(abs(cubic.zeroPoint - 1.9574338205844317) < 1e-12)
        #expect(abs(cubic.rateAfterSuccess(at: Self.at(5 + 1.9574338205844317)) - 10) < 1e-6)
    }

    @Test("The cube root is exact to a few ulps across magnitudes")
    func cubeRoot() async {
        await propertyCheck(input: Gen.double(in: -1e12...1e12)) { value in
            var cubic = CubicRateCalculator(scaleConstant: 1, beta: 0, lastMaxRate: 0, lastThrottle: Self.at(0))
            _ = cubic.rateAfterThrottle(sendingAt: value, at: Self.at(0))
            let root = cubic.zeroPoint
            let cubed = root * root * root
            #expect(abs(cubed - value) <= abs(value) * 1e-14 + 1e-300)
        }
    }

    @Test("Hostile times neither trap nor produce a non-finite rate")
    func hostileTimes() {
        let limiter = AdaptiveRateLimiter(configuration: .aws, start: Timestamp(nanosecondsSince1970: .min))
        limiter.record(throttled: true, at: Timestamp(nanosecondsSince1970: .min))
        limiter.record(throttled: false, at: Timestamp(nanosecondsSince1970: .max))
        let rate = limiter.record(throttled: true, at: Timestamp(nanosecondsSince1970: .max))
        #expect(rate.isFinite)
        #expect(limiter.snapshot.fillRate.isFinite)
        switch limiter.admit(at: Timestamp(nanosecondsSince1970: .min)) {
        case .send, .wait: break
        case .refuse: Issue.record("no maximum wait is configured")
        }
        let meterRate = limiter.snapshot.measuredRate
        #expect(meterRate.isFinite && meterRate >= 0)
    }

    @Test("The send rate is measured per half-second bucket and smoothed at 0.8")
    func meter() {
        var meter = SendRateMeter(start: Self.at(0))
        #expect(meter.record(at: Self.at(0.2)) == 0)
        #expect(meter.record(at: Self.at(0.4)) == 0)
        // Three responses over the first half second: 6 per second, × 0.8.
        #expect(abs(meter.record(at: Self.at(0.6)) - 4.8) < 1e-12)
        // Negative times round down, not toward zero.
        var early = SendRateMeter(start: Self.at(-0.7))
        #expect(early.record(at: Self.at(-0.6)) == 0)
        #expect(abs(early.record(at: Self.at(-0.4)) - 0.8 * 2 / 0.5) < 1e-12)
    }
}
