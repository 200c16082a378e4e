import RetryPolicyCore
import RetryPolicyInterop

/// Runs the semantic rules over loaded policies and stacks, and turns raw
/// findings into the reported ones (suppressions, then configuration).
public struct PolicyLinter: Sendable {
    public var configuration: LintConfiguration

    public init(configuration: LintConfiguration = LintConfiguration()) {
        self.configuration = configuration
    }

    /// Every semantic finding for one policy.
    public func check(policy: Policy, context: LintContext) -> [LintFinding] {
        LintCatalog.policyChecks.flatMap { $0.check(policy, context: context) }
    }

    /// Findings for a stack file whose layers were loaded by the caller (in
    /// layer order; a layer that failed to load is left out and no product
    /// is computed).
    public func check(stack: PolicyStack, layers: [(layer: PolicyStack.Layer, policy: Policy)], file: String) -> [LintFinding] {
        RetryAmplification.check(stack: stack, layers: layers, file: file)
    }

    /// Findings that need to know which layers were imported from another
    /// layer's configuration: `importedFrom[i]` is the format layer `i`
    /// was imported from, `nil` for a policy this engine applies.
    package func check(
        stack: PolicyStack, layers: [(layer: PolicyStack.Layer, policy: Policy)], importedFrom: [InteropFormat?], file: String
    ) -> [LintFinding] {
        TwoRetryLayers.check(stack: stack, layers: layers, importedFrom: importedFrom, file: file)
    }

    /// Applies the file's suppression comments, then the configuration, and
    /// sorts into report order.
    public func finalize(_ findings: [LintFinding], source: String?, file: String) -> [LintFinding] {
        var result = findings
        if let source { result = Suppressions(source: source, file: file).apply(to: result) }
        result = configuration.apply(to: result)
        return result.sorted(by: LintFinding.reportOrder)
    }
}
