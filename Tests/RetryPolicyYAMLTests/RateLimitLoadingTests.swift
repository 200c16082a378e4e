import RetryPolicyCore
import RetryPolicyYAML
import Testing

@Suite("rate_limit: loading, ranges and writing")
struct RateLimitLoadingTests {
    static let head = """
        version: 1
        name: adaptive
        attempts: 3
        rules:
          - {status: 429, error: status_429, action: retry}
          - {status: 503, error: slow_down, action: retry}
        errors:
          slow_down: {}

        """

    static func load(_ section: String) throws(PolicyLoadError) -> Policy {
        try PolicyLoader().loadPolicy(yaml: head + section, path: "adaptive.yaml")
    }

    static func diagnostics(_ section: String) -> [String] {
        do {
            _ = try load(section)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("'adaptive' alone takes botocore's numbers")
    func scalarForm() throws {
        let policy = try Self.load("rate_limit: adaptive\n")
        #expect(policy.rateLimit == .aws)
        #expect(policy.rateLimit?.beta == 0.7)
        #expect(policy.rateLimit?.scaleConstant == 0.4)
        #expect(policy.rateLimit?.smoothing == 0.8)
        #expect(policy.rateLimit?.measurementInterval == .milliseconds(500))
        #expect(policy.rateLimit?.minimumRate == 0.5)
        #expect(policy.rateLimit?.maximumRateScale == 2)
        #expect(policy.rateLimit?.maximumWait == nil)
        #expect(policy.rateLimit?.throttlingErrors == [.status429])
    }

    @Test("every key of the mapping form loads")
    func mappingForm() throws {
        let policy = try Self.load(
            """
            rate_limit:
              mode: adaptive
              beta: 0.5
              scale_constant: 0.8
              smoothing: 0.6
              measurement_interval: 250ms
              min_rate: 2
              max_rate_scale: 3
              max_wait: 10s
              throttling_errors: [status_429, slow_down]
            """)
        let limit = try #require(policy.rateLimit)
        #expect(limit.beta == 0.5)
        #expect(limit.scaleConstant == 0.8)
        #expect(limit.smoothing == 0.6)
        #expect(limit.measurementInterval == .milliseconds(250))
        #expect(limit.minimumRate == 2)
        #expect(limit.maximumRateScale == 3)
        #expect(limit.maximumWait == .seconds(10))
        #expect(limit.throttlingErrors == [.status429, "slow_down"])
        #expect(policy.keyLocations["rate_limit.max_wait"]?.line == 17)
    }

    @Test("mistakes are reported at their line, with what was expected")
    func located() {
        let unknownMode = Self.diagnostics("rate_limit: standard\n")
        #expect(unknownMode.count == 1)
        #expect(unknownMode.first?.contains("adaptive.yaml:9:") == true)
        #expect(unknownMode.first?.contains("adaptive") == true)
        let missingMode = Self.diagnostics("rate_limit:\n  beta: 0.5\n")
        #expect(missingMode.contains { $0.contains("missing required key 'mode'") })
        let beta = Self.diagnostics("rate_limit:\n  mode: adaptive\n  beta: 0\n")
        #expect(beta.count == 1)
        #expect(beta.first?.contains("adaptive.yaml:11:") == true)
        #expect(beta.first?.contains("rate_limit.beta") == true)
        let unknownKey = Self.diagnostics("rate_limit:\n  mode: adaptive\n  bta: 0.5\n")
        #expect(unknownKey.first?.contains("unknown key 'bta'") == true)
        let undeclared = Self.diagnostics("rate_limit:\n  mode: adaptive\n  throttling_errors: [throttled]\n")
        #expect(undeclared.first?.contains("rate_limit.throttling_errors") == true)
        let wait = Self.diagnostics("rate_limit:\n  mode: adaptive\n  max_wait: 0s\n")
        #expect(wait.first?.contains("rate_limit.max_wait") == true)
        let empty = Self.diagnostics("rate_limit:\n  mode: adaptive\n  throttling_errors: []\n")
        #expect(empty.contains { $0.contains("rate_limit.throttling_errors") })
    }

    @Test("the validator holds a policy built in code to the same ranges")
    func validatorRanges() {
        var limit = AdaptiveRateLimit.aws
        limit.beta = 0
        limit.smoothing = 2
        limit.scaleConstant = .nan
        limit.minimumRate = 0
        limit.maximumRateScale = 0.5
        limit.measurementInterval = .zero
        limit.maximumWait = .seconds(-1)
        limit.throttlingErrors = []
        var policy = Policy(name: "p", attempts: 2)
        policy.rateLimit = limit
        let paths = Set(policy.problems.map(\.keyPath))
        #expect(
            paths == [
                "rate_limit.beta", "rate_limit.smoothing", "rate_limit.scale_constant", "rate_limit.min_rate",
                "rate_limit.max_rate_scale", "rate_limit.measurement_interval", "rate_limit.max_wait",
                "rate_limit.throttling_errors",
            ])
        policy.rateLimit = .aws
        #expect(policy.problems.isEmpty)
    }

    @Test("PolicyWriter writes both forms back to what was read")
    func roundTrip() throws {
        for section in [
            "rate_limit: adaptive\n",
            "rate_limit:\n  mode: adaptive\n  beta: 0.55\n  max_wait: 1m30s\n  throttling_errors: [slow_down]\n",
            "rate_limit:\n  mode: adaptive\n  smoothing: 1\n  measurement_interval: 1s\n  min_rate: 0.001\n",
        ] {
            let policy = try Self.load(section)
            let text = try PolicyWriter.yaml(policy)
            let again = try PolicyLoader().loadPolicy(yaml: text, path: "written.yaml")
            #expect(again.rateLimit == policy.rateLimit, "\(text)")
        }
        #expect(try PolicyWriter.yaml(try Self.load("rate_limit: adaptive\n")).contains("rate_limit: adaptive\n"))
    }
}
