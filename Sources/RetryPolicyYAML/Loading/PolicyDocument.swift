import RetryPolicyCore

/// What a policy file holds: one policy, or a stack of layers.
public enum PolicyDocument: Sendable {
    case policy(Policy)
    case stack(PolicyStack)
}
