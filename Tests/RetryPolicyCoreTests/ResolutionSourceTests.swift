import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@Suite struct ResolutionSourceTests {
    /// A policy and, written out by hand from its rule list, the index of
    /// the rule that first matches each status and transport failure.
    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let policy: Policy
        let statusRule: @Sendable (Int, HTTPMethod) -> Int?
        let transportRule: @Sendable (TransportFailure) -> Int?
    }

    static let cases: [Case] = [
        Case(
            testDescription: "seed 000", policy: TestPolicies.tmdb(),
            statusRule: { status, _ in
                switch status {
                case 429: 0
                case 500...599: 1
                case 400...499: 2
                default: nil
                }
            },
            transportRule: { _ in nil }),
        Case(
            testDescription: "seed 001", policy: TestPolicies.mobileClient,
            statusRule: { status, _ in
                switch status {
                case 500...599: 1
                case 401, 403: 2
                case 404: 3
                case 400...499: 4
                default: nil
                }
            },
            transportRule: { transport in
                switch transport {
                case .timeout, .connectionLost, .offline: 0
                case .cancelled: 5
                case .decoding: 6
                case .invalidURL: 7
                default: nil
                }
            }),
        Case(
            testDescription: "seed 004", policy: TestPolicies.mobileSDK(),
            statusRule: { status, _ in
                switch status {
                case 204: 0
                case 400, 401: 1
                case 429: 2
                case 500...599: 3
                default: nil
                }
            },
            transportRule: { transport in
                switch transport {
                case .timeout: 4
                case .dns, .tls, .offline, .connectionRefused, .connectionLost, .invalidURL: 5
                case .cancelled: 6
                case .decoding: 7
                case .unknown: 8
                }
            }),
        Case(
            testDescription: "seed 000 with a GET-only and a PUT-only 5xx rule first",
            policy: {
                var policy = TestPolicies.tmdb()
                policy.rules.insert(Rule(statuses: [.statusClass(5)], methods: [.get], error: .status5xx, action: .retry), at: 0)
                policy.rules.insert(Rule(statuses: [.range(500...503)], methods: [.put], error: "put_failed", action: .stop), at: 1)
                return policy
            }(),
            statusRule: { status, method in
                switch (status, method) {
                case (500...599, .get): 0
                case (500...503, .put): 1
                case (429, _): 2
                case (500...599, _): 3
                case (400...499, _): 4
                default: nil
                }
            },
            transportRule: { _ in nil }),
    ]

    /// What decides an input no rule matches.
    static func unmatched(status: Int?, hasDefault: Bool) -> CompiledPolicy.Resolution.Source {
        if let status, (200...299).contains(status) { return .implicitSuccess }
        return hasDefault ? .defaultRule : .implicitStop
    }

    @Test("every status and transport failure is decided by the first rule that matches it, else the default, a 2xx success or a stop", arguments: cases)
    func sourceIsTheFirstMatchingRule(_ testCase: Case) {
        var noDefault = testCase.policy
        noDefault.defaultRule = nil
        for policy in [testCase.policy, noDefault] {
            let compiled = CompiledPolicy(policy: policy)
            let hasDefault = policy.defaultRule != nil
            for method in HTTPMethod.standard {
                let table = compiled.methodSlot(method)
                for status in 100...599 {
                    let expected = testCase.statusRule(status, method).map { .rule($0) } ?? Self.unmatched(status: status, hasDefault: hasDefault)
                    #expect(compiled.resolution(for: .status(status), method: method).source == expected, "\(method) \(status)")
                    let slot = CompiledPolicy.inputSlot(status: status)!
                    #expect(compiled.source(inputSlot: slot, methodSlot: table) == expected, "\(method) \(status)")
                }
                for transport in TransportFailure.allCases {
                    let expected = testCase.transportRule(transport).map { .rule($0) } ?? Self.unmatched(status: nil, hasDefault: hasDefault)
                    #expect(compiled.resolution(for: .transport(transport), method: method).source == expected, "\(method) \(transport)")
                    let slot = CompiledPolicy.inputSlot(transport: transport)
                    #expect(compiled.source(inputSlot: slot, methodSlot: table) == expected, "\(method) \(transport)")
                }
            }
        }
    }

    @Test("a 2xx is an implicit success; nothing else is")
    func implicitSuccess() {
        #expect(CompiledPolicy.isImplicitSuccess(.status(200)) && CompiledPolicy.isImplicitSuccess(.status(299)))
        #expect(!CompiledPolicy.isImplicitSuccess(.status(199)) && !CompiledPolicy.isImplicitSuccess(.status(300)))
        #expect(!CompiledPolicy.isImplicitSuccess(.transport(.timeout)))
    }
}
