import Benchmark
import BenchmarkWorkloads
import RetryPolicyCore

/// Each engine benchmark has a hand-written twin that does the same work in
/// the same run, so `Benchmarks/run` can report ratios that do not depend on
/// the machine. One iteration decides the whole 1,000-input mix (or builds
/// both full decision tables and diffs them).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 20,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    let mix = Workload.mix
    let retrying = RetryDecider(policy: Workload.retrying)
    let singleAttempt = RetryDecider(policy: Workload.singleAttempt)
    let android = RetryDecider(policy: DecisionTables.android)
    Equivalence.check(mix: mix, retrying: retrying, singleAttempt: singleAttempt, android: android)

    Benchmark("decision.retrying.engine") { benchmark in
        var generator = SplitMix64(seed: 7)
        for _ in benchmark.scaledIterations {
            for input in mix { blackHole(retrying.decide(input, using: &generator)) }
        }
    }
    Benchmark("decision.retrying.baseline") { benchmark in
        var generator = SplitMix64(seed: 7)
        for _ in benchmark.scaledIterations {
            for input in mix { blackHole(HandWritten.retrying(input, using: &generator)) }
        }
    }

    Benchmark("decision.single-attempt.engine") { benchmark in
        var generator = SplitMix64(seed: 7)
        for _ in benchmark.scaledIterations {
            for input in mix { blackHole(singleAttempt.decide(input, using: &generator)) }
        }
    }
    Benchmark("decision.single-attempt.baseline") { benchmark in
        for _ in benchmark.scaledIterations {
            for input in mix { blackHole(HandWritten.singleAttempt(input)) }
        }
    }

    Benchmark("table.parity-diff.engine") { benchmark in
        for _ in benchmark.scaledIterations {
            var generator = SplitMix64(seed: 7)
            let ios = DecisionTables.table { singleAttempt.decide($0, using: &generator) }
            let other = DecisionTables.table { android.decide($0, using: &generator) }
            blackHole(DecisionTables.diff(ios, other))
        }
    }
    Benchmark("table.parity-diff.baseline") { benchmark in
        for _ in benchmark.scaledIterations {
            let ios = DecisionTables.table(HandWritten.singleAttempt)
            let other = DecisionTables.table(DecisionTables.handWrittenAndroid)
            blackHole(DecisionTables.diff(ios, other))
        }
    }
}

/// Refuses to benchmark two sides that do not decide the same.
enum Equivalence {
    static func check(mix: [DecisionInput], retrying: RetryDecider, singleAttempt: RetryDecider, android: RetryDecider) {
        var engineGenerator = SplitMix64(seed: 1)
        var handGenerator = SplitMix64(seed: 1)
        var retries = 0
        for (index, input) in mix.enumerated() {
            let engine = retrying.decide(input, using: &engineGenerator).action
            let hand = HandWritten.retrying(input, using: &handGenerator)
            precondition(engine == hand.action, "retrying input \(index) \(input.outcome): engine \(engine), hand-written \(hand.action)")
            if case .retry = engine { retries += 1 }
            let single = singleAttempt.decide(input, using: &engineGenerator).action
            let handSingle = HandWritten.singleAttempt(input).action
            precondition(single == handSingle, "single-attempt input \(index) \(input.outcome): engine \(single), hand-written \(handSingle)")
        }
        precondition(retries > 0, "the mix must exercise retries")
        var generator = SplitMix64(seed: 1)
        let engineDiff = DecisionTables.diff(
            DecisionTables.table { singleAttempt.decide($0, using: &generator) },
            DecisionTables.table { android.decide($0, using: &generator) })
        let handDiff = DecisionTables.diff(
            DecisionTables.table(HandWritten.singleAttempt), DecisionTables.table(DecisionTables.handWrittenAndroid))
        precondition(engineDiff == handDiff && !engineDiff.isEmpty, "parity diffs differ: \(engineDiff.count) vs \(handDiff.count)")
    }
}
