import Dispatch
import ExecutorWorkloads
import RetryPolicyCore
import RetryPolicyExecutor

// executor-profile SIDE PATH N: N requests one after another in one task,
// as the `executor.*-in-one-task` benchmarks run them, without the
// benchmark harness (which valgrind cannot run), so that
// `valgrind --tool=callgrind` can count the instructions of one request
// (the count for N minus the count for 0, divided by N) and attribute them
// to functions. SIDE is `engine` (`RetryExecutor.runConcurrently`, as the
// benchmarks call it), `engine-run` (`RetryExecutor.run`, the form for an
// operation in the caller's isolation), `engine-throwing` (`run` with seed
// 003's throwing closure, its status read by `classify`) or `seed003`
// (seed 003's `retry`);
// PATH is `retry` (503, 503, 200) or `success` (200 at once).
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]), count >= 0,
    ["engine", "engine-run", "engine-throwing", "seed003"].contains(arguments[1]), ["retry", "success"].contains(arguments[2])
else {
    fatalError("usage: executor-profile engine|engine-run|engine-throwing|seed003 retry|success N")
}

@inline(never)
func engine(retrying: Bool, concurrently: Bool, count: Int) async {
    let executor = RetryExecutor(
        decider: RetryDecider(policy: SeedPolicy.networkingGuide), clock: ImmediateClock(),
        wallClockNow: Timestamp(secondsSince1970: 1_700_000_000))
    var generator = SplitMix64(seed: 3)
    for _ in 0..<count {
        let server = FlakyServer()
        let response: StubResponse
        if concurrently {
            response = try! await executor.runConcurrently(using: &generator) { _ in
                retrying ? server.respond() : StubResponse.ok
            }
        } else {
            response = try! await executor.run(using: &generator) { _ in
                retrying ? server.respond() : StubResponse.ok
            }
        }
        precondition(response.statusCode == 200)
    }
}

@inline(never)
func engineThrowing(retrying: Bool, count: Int) async {
    let executor = RetryExecutor(
        decider: RetryDecider(policy: SeedPolicy.networkingGuide), clock: ImmediateClock(),
        wallClockNow: Timestamp(secondsSince1970: 1_700_000_000))
    var generator = SplitMix64(seed: 3)
    for _ in 0..<count {
        let server = FlakyServer()
        let response = try! await executor.run(using: &generator, classify: Seed003Request.classify) {
            _ throws(FailedStatus) -> StubResponse in
            try Seed003Request.check(retrying ? server.respond() : StubResponse.ok)
        }
        precondition(response.statusCode == 200)
    }
}

@inline(never)
func seed003(retrying: Bool, count: Int) async {
    for _ in 0..<count {
        let server = FlakyServer()
        let response = try! await retry(clock: ImmediateClock()) { () throws(FailedStatus) -> StubResponse in
            try Seed003Request.check(retrying ? server.respond() : StubResponse.ok)
        } strategy: { Seed003Request.strategy($0) }
        precondition(response.statusCode == 200)
    }
}

// A detached task and a semaphore rather than an async main: valgrind
// does not survive the main thread parked in dispatch's signal wait.
let done = DispatchSemaphore(value: 0)
let side = arguments[1]
let retrying = arguments[2] == "retry"
Task.detached {
    if side == "engine-throwing" {
        await engineThrowing(retrying: retrying, count: count)
    } else if side != "seed003" {
        await engine(retrying: retrying, concurrently: side == "engine", count: count)
    } else {
        await seed003(retrying: retrying, count: count)
    }
    done.signal()
}
done.wait()
print("\(count) requests")
