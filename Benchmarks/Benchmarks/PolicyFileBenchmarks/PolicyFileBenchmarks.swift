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

    // A whole corpus per iteration: a few iterations are enough. CPU time
    // is recorded too: on a shared machine it says more than wall-clock
    // time about the work itself.
    let corpusConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal], warmupIterations: 1,
        maxDuration: .seconds(20), maxIterations: 10)
    let (directory, paths) = PolicyCorpus.write()
    let run = LintRun(root: try! PolicyRoot(directory: directory))
    // Every generated file must load, and so must what it refers to; a
    // corpus of rejected files would measure the error path instead.
    let report = try! run.lint(paths: [directory])
    precondition(report.files.count == PolicyCorpus.size, "linted \(report.files.count) files")
    let loaderFindings = report.findings.filter { $0.id.hasPrefix("RP0") }
    precondition(loaderFindings.isEmpty, "generated policies do not load: \(loaderFindings.prefix(3))")
    precondition(report.findings.contains { $0.id == "RP115" }, "no parity pair differs")

    // What `retry-policy lint <directory>` does: find the files, load each
    // with its extends, parity partners and stack layers, run the rules.
    Benchmark("corpus.load-lint.engine", configuration: corpusConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try! run.lint(paths: [directory]).findings.count)
        }
    }
    // The floor: reading the same files' bytes, which any loader must do.
    Benchmark("corpus.load-lint.baseline", configuration: corpusConfiguration) { benchmark in
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
