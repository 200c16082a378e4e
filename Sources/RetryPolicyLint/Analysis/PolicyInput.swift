import RetryPolicyCore

/// One thing that can happen on an attempt, as the analyses enumerate them:
/// a status code without headers, or a transport failure class.
public enum PolicyInput: Hashable, Sendable, Comparable, CustomStringConvertible {
    case status(Int)
    case transport(TransportFailure)

    /// Every status HTTP defines, then every transport class: the whole
    /// input space a policy must answer for.
    public static let all: [PolicyInput] =
        StatusPattern.validCodes.map(PolicyInput.status) + TransportFailure.allCases.map(PolicyInput.transport)

    public var outcome: AttemptOutcome {
        switch self {
        case .status(let code): .status(code)
        case .transport(let failure): .transport(failure)
        }
    }

    /// 2xx responses no rule matches are successes whatever the default
    /// says, so they need no covering rule.
    package var isImplicitSuccess: Bool {
        if case .status(let code) = self { return CompiledPolicy.isImplicitSuccess(status: code) }
        return false
    }

    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .transport(let failure): "transport \(failure.rawValue)"
        }
    }

    public static func < (lhs: PolicyInput, rhs: PolicyInput) -> Bool {
        switch (lhs, rhs) {
        case (.status(let a), .status(let b)): a < b
        case (.status, .transport): true
        case (.transport, .status): false
        case (.transport(let a), .transport(let b)):
            TransportFailure.allCases.firstIndex(of: a)! < TransportFailure.allCases.firstIndex(of: b)!
        }
    }
}
