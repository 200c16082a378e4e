import Foundation
import RetryPolicyCore

/// 1,000 policy files of realistic size and shape (2-3 KB, comments,
/// 8-14 rules, backoff, Retry-After, timeouts, endpoints, budgets, custom
/// error kinds), varied by a seeded generator so that every run measures
/// the same files.
///
/// They are laid out the way a repository of policies is: 100 team
/// folders of 10 files each, a `base.yaml` with the team's timeout budgets
/// and default that 8 service policies extend, the services in iOS/Android
/// pairs that declare `parity` with each other (most pairs decide alike,
/// every fourth differs in one rule), and a `stack.yaml` naming three of
/// the services as layers. Linting one file therefore loads its partners
/// too, as `retry-policy lint` does.
public enum PolicyCorpus {
    public static let size = 1000
    static let teams = 100
    static let servicesPerTeam = 8

    /// Writes the corpus into `directory` (by default a new temporary
    /// directory) and returns the directory and the file paths.
    public static func write(
        into directory: String = NSTemporaryDirectory() + "retry-policy-corpus-\(getpid())"
    ) -> (directory: String, paths: [String]) {
        try? FileManager.default.removeItem(atPath: directory)
        var generator = SplitMix64(seed: 1000)
        var paths: [String] = []
        func store(_ text: String, _ path: String) {
            try! text.write(toFile: path, atomically: false, encoding: .utf8)
            paths.append(path)
        }
        for team in 0..<teams {
            let folder = "\(directory)/team-\(team)"
            try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            store(base(team: team, using: &generator), "\(folder)/base.yaml")
            for pair in 0..<(servicesPerTeam / 2) {
                let index = team * servicesPerTeam + pair * 2
                // Both platforms of a pair draw the same choices.
                let seed = generator.next()
                var ios = SplitMix64(seed: seed)
                var android = SplitMix64(seed: seed)
                let differs = pair == 3
                store(
                    text(index: index, platform: "ios", partner: "service-\(index + 1).yaml", using: &ios),
                    "\(folder)/service-\(index).yaml")
                store(
                    text(index: index + 1, platform: "android", partner: "service-\(index).yaml", differs: differs, using: &android),
                    "\(folder)/service-\(index + 1).yaml")
            }
            let first = team * servicesPerTeam
            store("""
                # The layers one request of team \(team) passes through; each retries
                # on its own, so the attempts multiply.
                version: 1
                name: team-\(team)-path
                stack:
                  - {name: app, policy: service-\(first).yaml}
                  - {name: api-client, policy: service-\(first + 2).yaml}
                  - {name: gateway, policy: service-\(first + 4).yaml}
                max_amplification: 50

                """, "\(folder)/stack.yaml")
        }
        precondition(paths.count == size)
        return (directory, paths)
    }

    /// The team's shared budgets, extended by every service of the team.
    static func base(team: Int, using generator: inout SplitMix64) -> String {
        """
        # Timeout budgets and the default of team \(team)'s services, which
        # extend this file and override what they need.
        version: 1
        name: team-\(team)-base
        description: Team \(team) timeout budgets (\(pick(["10s", "20s", "60s"], &generator)) unless overridden)

        timeouts:
          per_attempt: 10s
          total: \(pick(["20s", "60s", "2m"], &generator))

        endpoints:
          search:
            per_attempt: 5s
            total: 15s
          upload-\(team % 7):
            per_attempt: 30s
            total: 2m

        default:             # 1xx and 3xx the client did not handle
          error: internal_error
          action: stop

        """
    }

    static func pick<T>(_ options: [T], _ generator: inout SplitMix64) -> T {
        options[Int.random(in: 0..<options.count, using: &generator)]
    }

    static func text(
        index: Int, platform: String, partner: String, differs: Bool = false, using generator: inout SplitMix64
    ) -> String {
        let attempts = Int.random(in: 1...5, using: &generator)
        let jitter = pick(["full", "equal", "decorrelated"], &generator)
        let initial = pick(["100ms", "250ms", "500ms", "1s"], &generator)
        let maximum = pick(["5s", "10s", "30s"], &generator)
        let cap = pick(["5s", "30s", "60s", "2m"], &generator)
        let aboveCap = pick(["stop", "clamp", "ignore"], &generator)
        let total = pick(["20s", "60s", "2m"], &generator)
        let onTimeout = pick(["retry", "stop"], &generator)
        var text = """
            # Retry policy of service \(index), generated for the load benchmark.
            #
            # Shaped like the shipped policies: transient failures are retried
            # with jittered exponential backoff, client errors never are, and a
            # server's Retry-After is believed up to a cap.
            version: 1
            name: service-\(index)
            extends: base.yaml
            platform: \(platform)
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
              total: \(total)

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
                action: \(differs ? (onTimeout == "retry" ? "stop" : "retry") : onTimeout)
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

            errors:
              client_error: {}

            parity: [\(partner)]

            """
        return text
    }
}
