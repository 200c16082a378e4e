// One process of a fleet, for `Scripts/fleet.py`, which starts several of
// them against one PostgreSQL server and reads what they print.
//
//   fleet-probe init --url U
//       creates the tables.
//   fleet-probe load --url U --key K [--requests 1000] [--retry-every 20] [--per-second 1000]
//       prints "ready", waits for a line on stdin, sends the requests
//       (every retry-every-th fails once with a 503 and succeeds on the
//       retry), waits for the last refund write, prints the store's
//       counters as one line of JSON and "done", then waits for a line on
//       stdin before closing (so the caller can read the server's counters
//       while the connection is still open).
//   fleet-probe send --url U --key K [--rounds 200] [--interval-ms 50]
//       each round answers a request with `429, Retry-After: 30` (a
//       cooldown the policy waits out) and prints
//       "sent <cooldown end ns> <wall clock ns before the decision>".
//   fleet-probe observe --url U --key K --stop-file F
//       prints "ready", then polls its local admission gate (every 100 µs,
//       on the main thread) and prints
//       "seen <cooldown end ns> <wall clock ns>" whenever the cooldown it
//       would wait for changes, until F exists.
//
// Times are CLOCK_REALTIME nanoseconds, comparable between the processes
// of one machine.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FleetWorkloads
import RetryPolicyCore
import RetryPolicyPostgres

/// Writes one line to a descriptor at once (the reader waits for lines;
/// `print` would buffer them when the output is a pipe).
func emit(_ line: String, to descriptor: Int32 = 1) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { return }
        offset += written
    }
}

func fail(_ message: String) -> Never {
    emit("fleet-probe: \(message)", to: 2)
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("usage: fleet-probe init|load|send|observe --url URL ...") }
let options: [String: String] = {
    var options: [String: String] = [:]
    var index = 1
    while index < arguments.count {
        let name = arguments[index]
        guard name.hasPrefix("--"), index + 1 < arguments.count else { fail("expected --name value at '\(name)'") }
        options[String(name.dropFirst(2))] = arguments[index + 1]
        index += 2
    }
    return options
}()
@MainActor func option(_ name: String) -> String {
    guard let value = options[name] else { fail("--\(name) is required for \(command)") }
    return value
}
@MainActor func number(_ name: String, default value: Int) -> Int {
    guard let text = options[name] else { return value }
    guard let parsed = Int(text), parsed > 0 else { fail("--\(name) must be a positive integer, not '\(text)'") }
    return parsed
}

let store: PostgresRetryStateStore
do {
    store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: option("url")))
} catch {
    fail("\(error)")
}
do {
    if command == "init" {
        try await store.createSchema()
        exit(0)
    }
    try await store.start()
} catch {
    fail("\(error)")
}
let decider = await store.decider(for: FleetWorkload.policy(capacity: 100_000), key: option("key"))
let now = FleetWorkload.wallNow

func nanoseconds(_ timestamp: Timestamp) -> Int64 { timestamp.nanosecondsSince1970 }

switch command {
case "load":
    let requests = number("requests", default: 1_000)
    let retryEvery = number("retry-every", default: 20)
    let interval = Duration.seconds(1) / number("per-second", default: 1_000)
    emit("ready")
    _ = readLine()
    let before = store.statistics
    let clock = ContinuousClock()
    let start = clock.now
    var retried = 0
    for request in 0..<requests {
        try? await Task.sleep(until: start + interval * request, clock: clock)
        let time = now()
        guard case .proceed = decider.admit(now: time) else { fail("request \(request) was not admitted") }
        if request % retryEvery == 0 {
            guard decider.decide(DecisionInput(outcome: .status(503), now: time)).isRetry else {
                fail("the shared budget refused retry \(retried + 1)")
            }
            retried += 1
            _ = decider.decide(DecisionInput(outcome: .status(200), attempt: 2, now: now(), lastRetryCost: 5))
        } else {
            _ = decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get)
        }
    }
    let elapsed = clock.now - start
    // The refunds of the last interval are written by the next tick.
    try? await Task.sleep(for: store.configuration.refundInterval * 2.5)
    let after = store.statistics
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    emit("""
        {"requests": \(requests), "retries": \(retried), "seconds": \(seconds), \
        "round_trips": \(after.roundTrips - before.roundTrips), \
        "withdrawals": \(after.sharedWithdrawals - before.sharedWithdrawals), \
        "refusals": \(after.sharedRefusals - before.sharedRefusals), \
        "refund_writes": \(after.refundFlushes - before.refundFlushes), \
        "cooldowns_published": \(after.cooldownsPublished - before.cooldownsPublished), \
        "fallbacks": \(after.fallbacks - before.fallbacks)}
        """)
    emit("done")
    _ = readLine()

case "send":
    let rounds = number("rounds", default: 200)
    let interval = Duration.milliseconds(number("interval-ms", default: 50))
    let clock = ContinuousClock()
    let start = clock.now
    for round in 1...rounds {
        try? await Task.sleep(until: start + interval * round, clock: clock)
        let sent = now()
        let decision = decider.decide(
            DecisionInput(outcome: .response(status: 429, headers: ["Retry-After": "30"]), now: sent))
        guard decision.isRetry, let cooldown = decider.cooldown.active(at: sent) else {
            fail("round \(round): the 429 did not start a cooldown (\(decision.action))")
        }
        emit("sent \(nanoseconds(cooldown.until)) \(nanoseconds(sent))")
    }
    // Let the last statement go out before closing.
    try? await Task.sleep(for: .milliseconds(200))
    let statistics = store.statistics
    emit("published \(statistics.cooldownsPublished) fallbacks \(statistics.fallbacks)")

case "observe":
    let stopFile = option("stop-file")
    emit("ready")
    var last: Int64 = .min
    var polls = 0
    while true {
        let time = now()
        if let until = decider.cooldown.active(at: time)?.until.nanosecondsSince1970, until != last {
            emit("seen \(until) \(nanoseconds(time))")
            last = until
        }
        polls += 1
        if polls % 1_000 == 0, access(stopFile, F_OK) == 0 { break }
        usleep(100)
    }
    emit("received \(store.statistics.cooldownsReceived)")

default:
    fail("unknown command '\(command)'")
}
await store.shutdown()
