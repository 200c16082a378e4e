import Foundation
import RetryPolicyCore

/// 1,000 policy files of realistic size and shape (2-3 KB, comments,
/// 8-14 rules, backoff, Retry-After, timeouts, endpoints, budgets, custom
/// error kinds), varied by a seeded generator so that every run measures
/// the same files.
enum PolicyCorpus {
    static let size = 1000

    /// Writes the corpus into a new temporary directory and returns the
    /// file paths.
    static func write() -> [String] {
        let directory = NSTemporaryDirectory() + "retry-policy-corpus-\(getpid())"
        try? FileManager.default.removeItem(atPath: directory)
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var generator = SplitMix64(seed: 1000)
        return (0..<size).map { index in
            let path = "\(directory)/service-\(index).yaml"
            try! text(index: index, using: &generator).write(toFile: path, atomically: false, encoding: .utf8)
            return path
        }
    }

    static func pick<T>(_ options: [T], _ generator: inout SplitMix64) -> T {
        options[Int.random(in: 0..<options.count, using: &generator)]
    }

    static func text(index: Int, using generator: inout SplitMix64) -> String {
        let attempts = Int.random(in: 1...5, using: &generator)
        let jitter = pick(["full", "equal", "decorrelated"], &generator)
        let initial = pick(["100ms", "250ms", "500ms", "1s"], &generator)
        let maximum = pick(["5s", "10s", "30s"], &generator)
        let cap = pick(["5s", "30s", "60s", "2m"], &generator)
        let aboveCap = pick(["stop", "clamp", "ignore"], &generator)
        let total = pick(["20s", "60s", "2m"], &generator)
        var text = """
            # Retry policy of service \(index), generated for the load benchmark.
            #
            # Shaped like the shipped policies: transient failures are retried
            # with jittered exponential backoff, client errors never are, and a
            # server's Retry-After is believed up to a cap.
            version: 1
            name: service-\(index)
            description: Service \(index) - retry transient failures, \(attempts) attempts, \(initial) to \(maximum) \(jitter) jitter

            attempts: \(attempts)

            backoff:
              initial: \(initial)
              max: \(maximum)
              multiplier: 2
              jitter: \(jitter)

            retry_after:
              honor: true
              combine: \(pick(["server", "max"], &generator))
              headers: [{name: Retry-After, format: http}, {name: retry-after-ms, format: milliseconds}]
              cap: \(cap)
              above_cap: \(aboveCap)
              cooldown: \(pick(["off", "wait", "reject"], &generator))

            timeouts:
              per_attempt: 10s
              total: \(total)

            endpoints:
              search:
                per_attempt: 5s
                total: 15s
              upload-\(index % 7):
                per_attempt: 30s
                total: 2m

            idempotency:
              methods: [GET, HEAD, PUT, DELETE, OPTIONS]
              honor_idempotent_requests: true

            """
        if Bool.random(using: &generator) {
            text += """
                budget:
                  capacity: \(pick([100, 500, 1000], &generator))
                  retry_cost: 5
                  timeout_retry_cost: 10
                  success_refund: 1

                """
        }
        text += """
            rules:
              - status: 429
                error: status_429                # rate limited
                action: retry
              # 501 Not Implemented is never transient.
              - status: 501
                error: status_5xx
                action: stop
              - status: \(pick(["5xx", "[500, 502, 503, 504]", "500-599"], &generator))
                error: status_5xx
                action: retry
              - status: 401
                error: unauthorized
                action: stop
              - status: 404
                error: not_found
                action: \(pick(["stop", "success"], &generator))
              - status: 4xx
                error: client_error              # the request itself is wrong
                action: stop
              - transport: timeout
                error: timeout
                action: \(pick(["retry", "stop"], &generator))
              - transport: [connection_lost, offline]
                error: network_error
                action: retry
              - transport: cancelled
                error: cancelled
                action: stop
              - transport: decoding
                error: decoding_failed
                action: stop
              - transport: [dns, tls, connection_refused, invalid_url, unknown]
                error: network_error
                action: stop

            default:             # 1xx and 3xx the client did not handle
              error: internal_error
              action: stop

            errors:
              client_error: {}

            """
        return text
    }
}
