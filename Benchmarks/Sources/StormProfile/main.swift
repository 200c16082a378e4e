#if canImport(Glibc)
import Glibc
#endif
import RetryPolicySimulation
import RetryPolicyYAML

// `storm-profile POLICY CLIENTS [--shared-only]`: one outage storm of
// CLIENTS clients (20 s of 503) without the harness, printing the time
// taken and the process's peak resident memory; small enough for
// callgrind at a few thousand clients.
let arguments = CommandLine.arguments
let path = arguments.count > 1 ? arguments[1] : "../policies/tmdb.yaml"
let clients = arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000
let policy = try PolicyLoader().loadPolicy(atPath: path)
let outage = try ScriptedResponse.parse("503").get()
let start = ContinuousClock.now
let storm = OutageStorm.run(
    policy: policy, configuration: OutageStorm.Configuration(clients: clients, outage: .seconds(20), outageResponse: outage))
let elapsed = ContinuousClock.now - start
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
print("""
    \(clients) clients: \(storm.totalRequests) requests, \(storm.succeeded) succeeded, in \(elapsed)
    peak resident memory \(usage.ru_maxrss / 1024) MB
    """)
