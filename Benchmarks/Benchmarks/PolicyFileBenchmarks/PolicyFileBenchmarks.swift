import Benchmark
import BenchmarkWorkloads
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

/// Loading and linting a large repository of policy files, and diffing two
/// policies over the whole input space with the lint library, each next to
/// a hand-written floor.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 1000
    )

    let paths = PolicyCorpus.write()
    let linter = PolicyLinter()
    // Every generated file must load; a corpus of rejected files would
    // measure the error path instead.
    for path in paths {
        do throws(PolicyLoadError) { _ = try PolicyLoader().loadPolicy(atPath: path) } catch {
            fatalError("generated policy does not load: \(error.diagnostics.map(\.description))")
        }
    }

    Benchmark("corpus.load-lint.engine", configuration: .init(maxIterations: 20)) { benchmark in
        for _ in benchmark.scaledIterations {
            var findings = 0
            for path in paths {
                let policy = try! PolicyLoader().loadPolicy(atPath: path)
                findings += linter.check(policy: policy, context: LintContext(file: path)).count
            }
            blackHole(findings)
        }
    }
    // The floor: reading the same files' bytes, which any loader must do.
    Benchmark("corpus.load-lint.baseline", configuration: .init(maxIterations: 20)) { benchmark in
        for _ in benchmark.scaledIterations {
            var bytes = 0
            for path in paths { bytes += FileManager.default.contents(atPath: path)!.count }
            blackHole(bytes)
        }
    }

    let ios = ParityWorkload.ios
    let android = ParityWorkload.android
    let comparison = PolicyDiff.compare(ios, android)
    let attempts = comparison.attempts
    let methods = comparison.methods
    let handWritten = ParityWorkload.handWrittenDiff(attempts: attempts, methods: methods)
    precondition(
        comparison.differingInputs == handWritten.count && handWritten.count > 0,
        "lint diff and hand-written diff disagree: \(comparison.differingInputs) vs \(handWritten.count)")
    Benchmark("table.lint-diff.engine") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(PolicyDiff.compare(ios, android)) }
    }
    Benchmark("table.lint-diff.baseline") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(ParityWorkload.handWrittenDiff(attempts: attempts, methods: methods)) }
    }
}
