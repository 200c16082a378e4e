import RetryPolicyCore

/// libFuzzer entry point for server-directed delays.
///
/// The first byte picks the header format and a policy variant, the next
/// eight give the wall-clock time, the rest is the header value exactly as
/// received (invalid UTF-8 included). Beyond "never traps", it checks the
/// promises that make hostile servers harmless: a parsed delay is never
/// negative nor above `RetryAfterValue.maximumDelay`; a number, however
/// long, is a delay (it saturates, never falls back to backoff); a delay
/// above the cap meets the cap policy (stop, clamp or ignore); and no
/// decision or cooldown waits past the policy's cap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRetryAfter(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let selector = bytes.first else { return 0 }
    var nanos: UInt64 = 0
    for byte in bytes.dropFirst().prefix(8) { nanos = nanos << 8 | UInt64(byte) }
    let now = Timestamp(nanosecondsSince1970: Int64(bitPattern: nanos))
    let value = String(decoding: bytes.dropFirst(9), as: UTF8.self)

    let formats = RetryAfterPolicy.Header.Format.allCases
    let format = formats[Int(selector) % formats.count]
    for when in [now, nil] {
        if let delay = RetryAfterValue.parse(value, format: format, now: when) {
            precondition(delay >= .zero, "negative delay \(delay) for '\(value)' (\(format))")
            precondition(delay <= RetryAfterValue.maximumDelay, "delay \(delay) beyond the maximum for '\(value)'")
        }
    }
    var trimmed = Substring(value)
    while let first = trimmed.first, first == " " || first == "\t" { trimmed = trimmed.dropFirst() }
    while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
    if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
        precondition(RetryAfterValue.parse(value, format: format, now: now) != nil, "digits '\(value)' (\(format)) gave nil")
    }
    _ = HTTPDate.parse(value, now: now)
    let serverDelay = RetryAfterValue.parse(value, format: format, now: now)

    let cap = Duration.seconds(60)
    let backoffMax = Duration.seconds(30)
    let aboveCap = RetryAfterPolicy.AboveCap.allCases[Int(selector >> 2) % 3]
    let combine = RetryAfterPolicy.Combine.allCases[Int(selector >> 4) % 2]
    let policy = Policy(
        name: "fuzz",
        attempts: 3,
        backoff: Backoff(initial: .seconds(1), max: backoffMax, jitter: .full),
        retryAfter: RetryAfterPolicy(
            honor: true, cap: cap, aboveCap: aboveCap, combine: combine,
            headers: [.init(name: "Retry-After", format: format)], cooldown: .wait),
        rules: [Rule(statuses: [.code(429)], error: .status429, action: .retry)]
    )
    let decider = RetryDecider(policy: policy)
    var generator = SplitMix64(seed: nanos)
    let decision = decider.decide(
        DecisionInput(outcome: .response(status: 429, headers: ["Retry-After": value]), now: now), using: &generator)
    if let delay = decision.delay {
        precondition(delay >= .zero && delay <= cap, "waits \(delay) for '\(value)' (\(format), \(aboveCap), \(combine))")
    }
    if let serverDelay, serverDelay > cap {
        switch aboveCap {
        case .stop: precondition(decision.stopReason == .retryAfterTooLong, "'\(value)' (\(format)) did not stop")
        case .clamp: precondition(decision.delay == cap, "'\(value)' (\(format)) not clamped: \(String(describing: decision.delay))")
        case .ignore: precondition(!decision.serverDirected && (decision.delay ?? .zero) <= backoffMax, "'\(value)' not ignored")
        }
    }
    if case .wait(let remaining) = decider.admit(now: now) {
        precondition(remaining > .zero && remaining <= cap, "cooldown \(remaining) for '\(value)'")
    }
    _ = decision.error?.message
    return 0
}

/// SwiftPM links an executable's entry point as `FuzzRetryAfter_main`; hand
/// control to libFuzzer's driver from there.
@_cdecl("FuzzRetryAfter_main")
public func fuzzRetryAfterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzRetryAfter)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
