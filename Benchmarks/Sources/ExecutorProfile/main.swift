import Dispatch
import ExecutorWorkloads
import RetryPolicyCore

// executor-profile SIDE PATH N: N requests one after another in one task,
// as the `executor.*-in-one-task` benchmarks send them (the same
// `RequestSide` code), without the benchmark harness, which valgrind cannot
// run. Under `valgrind --tool=callgrind` the count for N minus the count
// for 0, divided by N, is the instructions of one request, and callgrind
// attributes them to functions and lines.
//
// With `closure`, each request is one call of a stored async closure, as
// the benchmark harness calls the plain names' iterations.
//
// SIDE: `engine` (the benchmarks' `.engine`: `run` with seed 003's
// throwing operation), `engine-returning` (`run`, the answer returned),
// `engine-concurrently` (`runConcurrently`, the answer returned), `seed003`
// (the benchmarks' `.baseline`) or `seed002`.
// PATH: `retry` (503, 503, 200) or `success` (200 at once). With
// `own-task`, each request runs in a task of its own, as the benchmark
// harness runs each iteration of the plain (not `-in-one-task`) names.
let sides = ["engine", "engine-returning", "engine-concurrently", "seed003", "seed002"]
let arguments = CommandLine.arguments
guard arguments.count == 4 || (arguments.count == 5 && ["own-task", "closure"].contains(arguments[4])), let count = Int(arguments[3]), count >= 0, sides.contains(arguments[1]),
    ["retry", "success"].contains(arguments[2])
else {
    fatalError("usage: executor-profile \(sides.joined(separator: "|")) retry|success N [own-task|closure]")
}

@inline(never)
func send<Side: RequestSide>(_ side: Side, retrying: Bool, count: Int) async {
    var generator = SplitMix64(seed: 3)
    if closure {
        // Each request through a stored async closure, as the benchmark
        // harness calls an iteration: a frame of the closure's size from
        // the task allocator per request.
        let body: @Sendable () async throws -> Void = {
            var generator = SplitMix64(seed: 3)
            if retrying {
                try await side.send(1, to: FlakyServer.self, using: &generator)
            } else {
                try await side.send(1, to: HealthyServer.self, using: &generator)
            }
        }
        for _ in 0..<count { try! await body() }
    } else if ownTask {
        // Each request in a task of its own, as the benchmark harness
        // runs an iteration: what a request costs the task allocator.
        for _ in 0..<count {
            let response = await Task {
                var generator = SplitMix64(seed: 3)
                return try! await retrying
                    ? side.send(to: FlakyServer(), using: &generator) : side.send(to: HealthyServer(), using: &generator)
            }.value
            precondition(response.statusCode == 200)
        }
    } else if retrying {
        try! await side.send(count, to: FlakyServer.self, using: &generator)
    } else {
        try! await side.send(count, to: HealthyServer.self, using: &generator)
    }
}

// A detached task and a semaphore rather than an async main: valgrind
// does not survive the main thread parked in dispatch's signal wait.
let done = DispatchSemaphore(value: 0)
let side = arguments[1]
let retrying = arguments[2] == "retry"
let ownTask = arguments.count == 5 && arguments[4] == "own-task"
let closure = arguments.count == 5 && arguments[4] == "closure"
Task.detached {
    switch side {
    case "engine": await send(EngineSide(), retrying: retrying, count: count)
    case "engine-returning": await send(EngineReturningSide(), retrying: retrying, count: count)
    case "engine-concurrently": await send(EngineConcurrentSide(), retrying: retrying, count: count)
    case "seed003": await send(Seed003Side(), retrying: retrying, count: count)
    default: await send(Seed002Side(), retrying: retrying, count: count)
    }
    done.signal()
}
done.wait()
print("\(count) requests")
