import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ReplayWorkloads

// `replay-profile N`: writes (once) an nginx log of N requests and replays
// it, printing the time taken, what the replay held at most, and the
// process's peak resident memory.
let count = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let path = ReplayWorkloads.writeNginxLog(requests: count)
let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
let start = ContinuousClock.now
let run = try ReplayWorkloads.replay(path: path)
let elapsed = ContinuousClock.now - start
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("""
    \(run.requests) requests (\(size / 1_000_000) MB of log) replayed in \(elapsed)
    attempts \(run.attempts), recorded attempts \(run.recordedAttempts), succeeded \(run.succeeded), budget stops \(run.budgetStops)
    at most \(run.peakActiveRequests) requests active, \(run.peakHeldBuckets) model buckets held
    peak resident memory \(usage.ru_maxrss / 1024) MB
    """)
