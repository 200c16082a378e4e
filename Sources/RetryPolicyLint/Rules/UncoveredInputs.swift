import RetryPolicyCore

/// RP102: inputs that no rule matches while the policy has no `default`.
enum UncoveredInputs: PolicyCheck {
    static let rule = LintRule(
        id: "RP102", name: "uncovered-inputs", defaultSeverity: .warning,
        summary: "Some statuses or transport failures are matched by no rule and the policy has no default.",
        explanation: """
            Every response and transport failure gets a decision. When no rule matches and the policy \
            has no `default:`, the engine stops with `internal_error`, which is almost never what the \
            author meant: a 404 or a DNS failure silently becomes an internal error. (2xx responses no \
            rule matches are successes and need no rule.) In a policy with `grpc` rules, every gRPC \
            status but OK needs a rule or the default too.

            Fix: add a `default:` that says what unlisted inputs mean, or rules for the listed inputs.

                default:
                  error: network_error
                  action: stop
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.defaultRule == nil else { return [] }
        let methods = distinguishedMethods(of: [policy])
        let table = FirstMatchTable(compiled: context.compiled(policy), methods: methods)
        var statuses: [Int] = []
        var transports: [TransportFailure] = []
        var grpc: [GRPCStatusCode] = []
        var partial = false
        for input in PolicyInput.space(of: [policy]) where !input.isImplicitSuccess {
            let uncovered = methods.indices.filter { table.rule(for: input, methodIndex: $0) == nil }
            guard !uncovered.isEmpty else { continue }
            if uncovered.count < methods.count { partial = true }
            switch input {
            case .status(let code): statuses.append(code)
            case .transport(let failure): transports.append(failure)
            case .grpc(let status): grpc.append(status)
            }
        }
        guard !statuses.isEmpty || !transports.isEmpty || !grpc.isEmpty else { return [] }
        var parts: [String] = []
        if !statuses.isEmpty { parts.append("status " + IntegerRanges.text(statuses)) }
        if !transports.isEmpty { parts.append("transport " + transports.map(\.rawValue).joined(separator: ", ")) }
        if !grpc.isEmpty { parts.append("gRPC " + grpc.map(\.name).joined(separator: ", ")) }
        let methodNote = partial ? " (for some methods)" : ""
        return [finding(
            at: context.place(key: "rules", or: policy.location, policy),
            "no rule and no default covers \(parts.joined(separator: "; "))\(methodNote); they stop as internal_error",
            suggestion: "add a `default:` with the error these inputs should report")]
    }
}
