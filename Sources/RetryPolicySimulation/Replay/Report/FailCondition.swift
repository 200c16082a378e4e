import RetryPolicyCore

/// A threshold of `--fail-if`: `METRIC OP VALUE`, such as
/// `amplification>2`, `success-rate-drop>1`, `wait-p99>=2s`. When one
/// holds, the replay fails (exit status 1), so CI can gate a policy
/// change. docs/replay.md lists the metrics.
public struct FailCondition: Hashable, Sendable, CustomStringConvertible {
    public enum Metric: String, CaseIterable, Hashable, Sendable {
        /// Attempts per request under the policy.
        case amplification
        /// The policy's attempts divided by the baseline's (or the recording's).
        case attemptsRatio = "attempts-ratio"
        /// Percent of requests that succeeded.
        case successRate = "success-rate"
        /// Percentage points the success rate fell below the baseline's
        /// (or the recording's, without a baseline).
        case successRateDrop = "success-rate-drop"
        /// The policy's peak attempts per second divided by the recorded peak.
        case peakRatio = "peak-ratio"
        /// Time a request spent waiting between attempts, at a percentile.
        case waitP50 = "wait-p50"
        case waitP95 = "wait-p95"
        case waitP99 = "wait-p99"
        /// Requests stopped by the retry budget, refused by the breaker.
        case budgetStops = "budget-stops"
        case breakerRefusals = "breaker-refusals"

        var isDuration: Bool { self == .waitP50 || self == .waitP95 || self == .waitP99 }
    }

    public enum Comparison: String, CaseIterable, Hashable, Sendable {
        case greater = ">"
        case greaterOrEqual = ">="
        case less = "<"
        case lessOrEqual = "<="

        func holds(_ lhs: Double, _ rhs: Double) -> Bool {
            switch self {
            case .greater: lhs > rhs
            case .greaterOrEqual: lhs >= rhs
            case .less: lhs < rhs
            case .lessOrEqual: lhs <= rhs
            }
        }
    }

    public var metric: Metric
    public var comparison: Comparison
    /// The threshold: a number, a percentage, or milliseconds for a wait.
    public var threshold: Double
    public var text: String

    public var description: String { text }

    /// Why a condition cannot be read, with the 1-based column.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var column: Int
        public var message: String
        public var description: String { "column \(column): \(message)" }
    }

    public static func parse(_ text: String) -> Result<FailCondition, ParseError> {
        let trimmed = Substring(text).trimmingSpaces
        guard let opStart = trimmed.firstIndex(where: { $0 == ">" || $0 == "<" }) else {
            return .failure(ParseError(column: 1, message: "expected METRIC>VALUE or METRIC<VALUE, such as amplification>2"))
        }
        let name = trimmed[..<opStart].trimmingSpaces
        guard let metric = Metric(rawValue: String(name)) else {
            let known = Metric.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(ParseError(column: 1, message: "unknown metric '\(name)': expected one of \(known)"))
        }
        var rest = trimmed[opStart...]
        let comparison: Comparison
        if rest.hasPrefix(">=") { comparison = .greaterOrEqual } else if rest.hasPrefix("<=") { comparison = .lessOrEqual }
        else if rest.hasPrefix(">") { comparison = .greater } else { comparison = .less }
        rest = rest.dropFirst(comparison.rawValue.count)
        let valueText = rest.trimmingSpaces
        let column = text.distance(from: text.startIndex, to: valueText.startIndex) + 1
        let threshold: Double
        if metric.isDuration {
            switch DurationText.parse(valueText) {
            case .success(let duration): threshold = Double(duration.nanosecondsSaturated) / 1e6
            case .failure(let error):
                return .failure(ParseError(column: column, message: "expected a duration such as 2s or 500ms: \(error)"))
            }
        } else {
            let number = valueText.hasSuffix("%") ? valueText.dropLast() : valueText
            guard let value = Double(number), value.isFinite else {
                return .failure(ParseError(column: column, message: "expected a number after '\(comparison.rawValue)', such as 2 or 1.5"))
            }
            threshold = value
        }
        return .success(FailCondition(metric: metric, comparison: comparison, threshold: threshold, text: String(trimmed)))
    }

    /// The metric's value in a report (a wait in milliseconds).
    public func value(in report: ReplayReport) -> Double {
        let run = report.run
        switch metric {
        case .amplification: return run.amplification
        case .attemptsRatio:
            let reference = report.baseline?.attempts ?? run.recordedAttempts
            return reference == 0 ? 0 : Double(run.attempts) / Double(reference)
        case .successRate: return run.successRate
        case .successRateDrop: return (report.baseline?.successRate ?? run.recordedSuccessRate) - run.successRate
        case .peakRatio:
            return run.recordedPeakPerSecond == 0 ? 0 : run.peakPerSecond / run.recordedPeakPerSecond
        case .waitP50: return Double(run.waitPercentile(0.5).nanosecondsSaturated) / 1e6
        case .waitP95: return Double(run.waitPercentile(0.95).nanosecondsSaturated) / 1e6
        case .waitP99: return Double(run.waitPercentile(0.99).nanosecondsSaturated) / 1e6
        case .budgetStops: return Double(run.budgetStops)
        case .breakerRefusals: return Double(run.rejectedByBreaker)
        }
    }

    public func holds(in report: ReplayReport) -> Bool {
        comparison.holds(value(in: report), threshold)
    }
}
