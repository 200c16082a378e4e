import BenchmarkWorkloads
import RetryPolicyCore

// decision-profile SIDE MIX N: decides the benchmarks' 1,000-input mix N
// times with the engine or the hand-written baseline, without the
// benchmark harness, so that `valgrind --tool=callgrind` can count the
// instructions of one pass (the count for N minus the count for 0, divided
// by N). SIDE is `engine` or `baseline`, MIX `retrying` or `single-attempt`.
@inline(never)
func sink(_ decision: Decision) {
    if decision.ruleIndex == Int.min { print(decision) }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]), count >= 0,
    ["engine", "baseline"].contains(arguments[1]), ["retrying", "single-attempt"].contains(arguments[2])
else {
    fatalError("usage: decision-profile engine|baseline retrying|single-attempt N")
}
// The loops run in functions so that the generator is a local variable,
// as in the benchmarks (a global one would add exclusivity checks).
@inline(never)
func engine(_ decider: RetryDecider, _ mix: [DecisionInput], passes: Int) {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<passes {
        for input in mix { sink(decider.decide(input, using: &generator)) }
    }
}

@inline(never)
func retryingBaseline(_ mix: [DecisionInput], passes: Int) {
    var generator = SplitMix64(seed: 7)
    for _ in 0..<passes {
        for input in mix { sink(HandWritten.retrying(input, using: &generator)) }
    }
}

@inline(never)
func singleAttemptBaseline(_ mix: [DecisionInput], passes: Int) {
    for _ in 0..<passes {
        for input in mix { sink(HandWritten.singleAttempt(input)) }
    }
}

let retrying = arguments[2] == "retrying"
switch (arguments[1], retrying) {
case ("engine", _):
    engine(RetryDecider(policy: retrying ? Workload.retrying : Workload.singleAttempt), Workload.mix, passes: count)
case (_, true): retryingBaseline(Workload.mix, passes: count)
case (_, false): singleAttemptBaseline(Workload.mix, passes: count)
}
print("\(count) passes over \(Workload.mix.count) inputs")
