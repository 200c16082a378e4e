import RetryPolicyCore

/// libFuzzer entry point for the notifications a store reads from its
/// peers on the shared-state channel (`SharedStateNotification`).
///
/// The first eight bytes give the wall-clock time, the ninth picks the
/// receiving policy's bounds (cooldown cap, break, multiplier, max_break),
/// the rest is the payload exactly as received (invalid UTF-8 included).
/// Beyond "never traps", it checks that anything accepted is in range
/// (status, kind, key, counts), that once limited by the receiving policy
/// a cooldown ends at most its cap after now and a break at most its
/// longest break after now, and that the break's length for any count of
/// openings is found at once, within that longest break.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSharedStatePayload(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard bytes.count >= 9 else { return 0 }
    var nanos: UInt64 = 0
    for byte in bytes.prefix(8) { nanos = nanos << 8 | UInt64(byte) }
    let now = Timestamp(nanosecondsSince1970: Int64(bitPattern: nanos))
    let selector = Int(bytes[8])
    let payload = String(decoding: bytes.dropFirst(9), as: UTF8.self)

    let caps: [Duration] = [.seconds(60), .zero, .nanoseconds(1), Backoff.ceiling]
    let cap = caps[selector % caps.count]
    let multipliers: [Double] = [1, 2, 1.000_000_001, 0.5]
    let maxBreaks: [Duration?] = [.seconds(300), nil, .zero, .nanoseconds(Int64.max)]
    let configuration = CircuitBreakerConfiguration(
        minimumCalls: 1, consecutiveFailures: 1, breakDuration: .seconds(10),
        breakMultiplier: multipliers[(selector >> 2) % multipliers.count],
        maxBreak: maxBreaks[(selector >> 4) % maxBreaks.count], halfOpenProbes: 1)
    let longest = configuration.longestBreak
    precondition(longest >= .zero, "longest break \(longest)")

    switch SharedStateNotification.parse(payload) {
    case .success(.cooldown(let cooldown)):
        precondition(payload.utf8.count <= SharedStateNotification.maximumBytes, "accepted \(payload.utf8.count) bytes")
        precondition(!cooldown.key.isEmpty, "empty key accepted")
        if let status = cooldown.status { precondition((100...599).contains(status), "status \(status) accepted") }
        let kind = cooldown.kind.rawValue.utf8
        precondition(
            !kind.isEmpty && kind.count <= SharedStateNotification.maximumKindBytes
                && kind.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 },
            "kind '\(cooldown.kind.rawValue)' accepted")
        let limited = cooldown.limited(to: cap, at: now)
        precondition(limited.until <= now + cap, "cooldown until \(limited.until) past \(now) + \(cap)")
        precondition(limited.until <= cooldown.until, "limiting lengthened the cooldown")
        let gate = CooldownGate()
        gate.apply(until: limited.until, error: SDKError(kind: limited.kind, statusCode: limited.status))
        if let (until, _) = gate.active(at: now) { precondition(until <= now + cap, "gate until \(until)") }
    case .success(.breaker(let change)):
        precondition(!change.key.isEmpty && change.opening >= 0 && change.openings >= 0, "out of range: \(change)")
        let limited = change.limited(by: configuration, at: now)
        precondition(limited.until <= now + longest, "break until \(limited.until) past \(now) + \(longest)")
        precondition((0...CircuitBreakerConfiguration.maximumOpenings).contains(limited.openings), "openings \(limited.openings)")
        // Any count, limited or not, gives a break within the longest at
        // once; the next opening after an adopted count is no longer.
        for openings in [change.openings, limited.openings, limited.openings &+ 1] {
            let length = configuration.breakDuration(opening: openings)
            precondition(length >= .zero && length <= longest, "break \(length) for \(openings) openings")
        }
    case .success(.probe), .failure:
        break
    }
    return 0
}

/// SwiftPM links an executable's entry point as
/// `FuzzSharedStatePayload_main`; hand control to libFuzzer's driver from
/// there.
@_cdecl("FuzzSharedStatePayload_main")
public func fuzzSharedStatePayloadMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzSharedStatePayload)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
