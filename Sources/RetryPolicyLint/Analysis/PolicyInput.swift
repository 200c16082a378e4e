import RetryPolicyCore

/// One thing that can happen on an attempt, as the analyses enumerate them:
/// a status code without headers, a transport failure class, or a gRPC
/// status without metadata.
public enum PolicyInput: Hashable, Sendable, Comparable, CustomStringConvertible {
    case status(Int)
    case transport(TransportFailure)
    case grpc(GRPCStatusCode)

    /// Every status HTTP defines, then every transport class: the input
    /// space of an HTTP policy.
    public static let all: [PolicyInput] =
        StatusPattern.validCodes.map(PolicyInput.status) + TransportFailure.allCases.map(PolicyInput.transport)

    /// ``all`` followed by every gRPC status.
    public static let withGRPC: [PolicyInput] = all + GRPCStatusCode.allCases.map(PolicyInput.grpc)

    /// The input space the analyses of `policies` cover: the gRPC statuses
    /// join it when one of the policies has a `grpc` rule, so that an HTTP
    /// policy's reports stay about HTTP.
    public static func space(of policies: [Policy]) -> [PolicyInput] {
        policies.contains(where: \.hasGRPCRules) ? withGRPC : all
    }

    public var outcome: AttemptOutcome {
        switch self {
        case .status(let code): .status(code)
        case .transport(let failure): .transport(failure)
        case .grpc(let status): .grpc(status)
        }
    }

    /// 2xx responses and gRPC OK no rule matches are successes whatever
    /// the default says, so they need no covering rule.
    package var isImplicitSuccess: Bool { CompiledPolicy.isImplicitSuccess(outcome) }

    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .transport(let failure): "transport \(failure.rawValue)"
        case .grpc(let status): "gRPC \(status.name)"
        }
    }

    /// Statuses, then transports, then gRPC statuses, each in its own order.
    public static func < (lhs: PolicyInput, rhs: PolicyInput) -> Bool {
        switch (lhs, rhs) {
        case (.status(let a), .status(let b)): a < b
        case (.transport(let a), .transport(let b)):
            TransportFailure.allCases.firstIndex(of: a)! < TransportFailure.allCases.firstIndex(of: b)!
        case (.grpc(let a), .grpc(let b)): a < b
        default: lhs.domain < rhs.domain
        }
    }

    private var domain: Int {
        switch self {
        case .status: 0
        case .transport: 1
        case .grpc: 2
        }
    }
}
