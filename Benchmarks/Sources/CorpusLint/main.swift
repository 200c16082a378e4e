import BenchmarkWorkloads
import Foundation
import RetryPolicyLint
import RetryPolicyYAML

// corpus-lint DIR N: writes the `corpus.load-lint` corpus into DIR
// (removing whatever DIR held) and runs `LintRun.lint(paths:)` over it N times, as
// the benchmark's iterations do. Counting instructions for N = 1 and
// N = 0 and subtracting gives the cost of one lint of 1,000 files.
let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count >= 0 else {
    print("usage: corpus-lint DIR N")
    exit(2)
}
let (directory, _) = PolicyCorpus.write(into: arguments[1])
let run = LintRun(root: try! PolicyRoot(directory: directory))
var findings = 0
for _ in 0..<count {
    findings += try! run.lint(paths: [directory]).findings.count
}
print("\(count) lints, \(findings) findings")
