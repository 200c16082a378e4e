import Logging
import Metrics
import RetryPolicyCore
import RetryPolicyMetricCatalogue

/// The executor's side of shadow mode: after a request, out of line, the
/// candidate is shown its attempts and the differences are reported (the
/// metrics `MetricCatalogue.shadowRequests` and
/// `MetricCatalogue.shadowDivergences`).
extension RetryExecutor {
    @usableFromInline @inline(never)
    func compareShadow(
        _ history: ArraySlice<AttemptRecord>, liveEnd: StopReason?, request: RetryRequest, start: Duration
    ) {
        guard let shadow = setup.fields.hooks.shadow else { return }
        let live = decider.policy
        let comparison = ShadowComparison(
            history: history, liveEnd: liveEnd, request: request, startedAt: wallTime(at: start), live: live,
            candidate: shadow.decider)
        let candidate = shadow.decider.policy.name
        if let factory = shadow.factory {
            Counter(
                label: MetricCatalogue.shadowRequests.name,
                dimensions: MetricCatalogue.shadowRequests.dimensions(live.name, candidate, comparison.coverage.rawValue),
                factory: factory
            ).increment()
            for divergence in comparison.divergences {
                Counter(
                    label: MetricCatalogue.shadowDivergences.name,
                    dimensions: MetricCatalogue.shadowDivergences.dimensions(live.name, candidate, divergence.kind.rawValue),
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
