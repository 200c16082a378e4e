import Logging
import Metrics
import RetryPolicyCore

/// The executor's side of shadow mode: after a request, out of line, the
/// candidate is shown its attempts and the differences are reported.
///
/// | metric | instrument | attributes |
/// |---|---|---|
/// | `retry_policy.shadow.requests` | counter | `retry_policy.policy`, `retry_policy.shadow.policy`, `retry_policy.shadow.coverage` (`complete`, `partial`, `not_compared`) |
/// | `retry_policy.shadow.divergences` | counter | `retry_policy.policy`, `retry_policy.shadow.policy`, `retry_policy.shadow.divergence` (a ``ShadowDivergence/Kind``) |
extension RetryExecutor {
    @usableFromInline @inline(never)
    func compareShadow(
        _ history: ArraySlice<AttemptRecord>, liveEnd: StopReason?, request: RetryRequest, start: C.Instant
    ) {
        guard let shadow = setup.fields.shadow else { return }
        let live = decider.policy
        let comparison = ShadowComparison(
            history: history, liveEnd: liveEnd, request: request, startedAt: wallClock.timestamp(at: start), live: live,
            candidate: shadow.decider)
        let candidate = shadow.decider.policy.name
        if let factory = shadow.factory {
            Counter(
                label: "retry_policy.shadow.requests",
                dimensions: [
                    ("retry_policy.policy", live.name), ("retry_policy.shadow.policy", candidate),
                    ("retry_policy.shadow.coverage", comparison.coverage.rawValue),
                ],
                factory: factory
            ).increment()
            for divergence in comparison.divergences {
                Counter(
                    label: "retry_policy.shadow.divergences",
                    dimensions: [
                        ("retry_policy.policy", live.name), ("retry_policy.shadow.policy", candidate),
                        ("retry_policy.shadow.divergence", divergence.kind.rawValue),
                    ],
                    factory: factory
                ).increment()
            }
        }
        for divergence in comparison.divergences {
            shadow.observer?(divergence)
            var metadata: Logger.Metadata = [
                "retry.policy": "\(live.name)",
                "retry.shadow.policy": "\(candidate)",
                "retry.shadow.divergence": "\(divergence.kind.rawValue)",
                "retry.endpoint": "\(request.endpoint ?? "none")",
                "retry.attempt": "\(divergence.attempt)",
            ]
            if let difference = divergence.delayDifference { metadata["retry.shadow.delay_difference"] = "\(difference.formattedForHumans)" }
            if let reason = divergence.candidateStopReason { metadata["retry.shadow.stop_reason"] = "\(reason.rawValue)" }
            if let rule = divergence.candidate?.ruleLocation { metadata["retry.shadow.rule"] = "\(rule)" }
            shadow.logger.info("shadow policy would have decided differently", metadata: metadata)
        }
    }
}
