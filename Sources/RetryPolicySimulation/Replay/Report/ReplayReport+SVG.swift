import RetryPolicyCore

extension ReplayReport {
    /// Load over time: attempts per window the recording shows (grey
    /// bars), the policy sends (red line) and the baseline sends (blue
    /// line), with the policy's breaker periods shaded, drawn the way
    /// outage storms are (``StormReport/svg``): 800 x 320, at most 400
    /// columns, finer windows summed.
    public var svg: String {
        let width = 800.0
        let height = 340.0
        let left = 60.0
        let top = 40.0
        let bottom = 60.0
        let plotWidth = width - left - 20
        let plotHeight = height - top - bottom
        // The columns are summed from the non-empty windows: a recording
        // spanning decades draws 400 columns as cheaply as one spanning a
        // minute.
        let count = max(run.load.span, run.recordedLoad.span, baseline?.load.span ?? 0, 1)
        let group = count / 400 + (count % 400 == 0 ? 0 : 1)
        let columnCount = Int(count / group + (count % group == 0 ? 0 : 1))
        let policy = run.load.columns(columnCount, group: group)
        let recorded = run.recordedLoad.columns(columnCount, group: group)
        let base = baseline.map { $0.load.columns(columnCount, group: group) }
        let window = run.window * group
        let peak = max(policy.max() ?? 0, recorded.max() ?? 0, base?.max() ?? 0, 1)
        let columnWidth = plotWidth / Double(policy.count)
        let scale = plotHeight / Double(peak)
        let title = "replay of \(run.requests) requests: \(run.policy.name)" + (baseline.map { " against \($0.policy.name)" } ?? "")
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="12">
            <title>\(XMLText.escape(title))</title>
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Int(left))" y="24" font-size="14">\(XMLText.escape(title))</text>

            """
        let windowNanos = Double(max(window.nanosecondsSaturated, 1))
        for period in run.breakerPeriods {
            let end = min(period.end ?? run.finishedAt, window * policy.count)
            guard end > period.start else { continue }
            let x = left + Double(period.start.nanosecondsSaturated) / windowNanos * columnWidth
            let span = Double((end - period.start).nanosecondsSaturated) / windowNanos * columnWidth
            let fill = period.state == .open ? "#cccccc" : "#f0e68c"
            svg += "<rect x=\(Self.quoted(x)) y=\(Self.quoted(top)) width=\(Self.quoted(max(span, 0.5))) height=\(Self.quoted(plotHeight)) fill=\"\(fill)\" fill-opacity=\"0.6\"><title>breaker \(period.state == .open ? "open" : "half-open") from \(period.start.formattedForHumans) to \(end.formattedForHumans)</title></rect>\n"
        }
        for (index, value) in recorded.enumerated() where value > 0 {
            let barHeight = Double(value) * scale
            svg += "<rect x=\(Self.quoted(left + Double(index) * columnWidth)) y=\(Self.quoted(top + plotHeight - barHeight)) width=\(Self.quoted(max(columnWidth - 1, 0.5))) height=\(Self.quoted(barHeight)) fill=\"#bbbbbb\"><title>\(value) recorded attempts at \((window * index).formattedForHumans)</title></rect>\n"
        }
        func line(_ values: [Int], colour: String, dashed: Bool) -> String {
            let points = values.enumerated().map { index, value in
                "\(Self.number(left + (Double(index) + 0.5) * columnWidth)),\(Self.number(top + plotHeight - Double(value) * scale))"
            }
            return "<polyline fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.5\"\(dashed ? " stroke-dasharray=\"5 3\"" : "") points=\"\(points.joined(separator: " "))\"/>\n"
        }
        if let base { svg += line(base, colour: "#337ab7", dashed: true) }
        svg += line(policy, colour: "#d9534f", dashed: false)
        svg += "<line x1=\(Self.quoted(left)) y1=\(Self.quoted(top + plotHeight)) x2=\(Self.quoted(left + plotWidth)) y2=\(Self.quoted(top + plotHeight)) stroke=\"black\"/>\n"
        svg += "<line x1=\(Self.quoted(left)) y1=\(Self.quoted(top)) x2=\(Self.quoted(left)) y2=\(Self.quoted(top + plotHeight)) stroke=\"black\"/>\n"
        svg += "<text x=\(Self.quoted(left - 6)) y=\(Self.quoted(top + 4)) text-anchor=\"end\">\(peak)</text>\n"
        svg += "<text x=\(Self.quoted(left - 6)) y=\(Self.quoted(top + plotHeight)) text-anchor=\"end\">0</text>\n"
        svg += "<text x=\(Self.quoted(left)) y=\(Self.quoted(top + plotHeight + 16))>\(XMLText.escape(run.firstStart.map(RecordedTime.format) ?? "0s"))</text>\n"
        svg += "<text x=\(Self.quoted(left + plotWidth)) y=\(Self.quoted(top + plotHeight + 16)) text-anchor=\"end\">+\((window * policy.count).formattedForHumans)</text>\n"
        var legend = "<tspan fill=\"#d9534f\">\(XMLText.escape(run.policy.name)) (\(run.attempts))</tspan>"
        if let baseline { legend += "  <tspan fill=\"#337ab7\">baseline \(XMLText.escape(baseline.policy.name)) (\(baseline.attempts))</tspan>" }
        legend += "  <tspan fill=\"#888888\">recorded (\(run.recordedAttempts))</tspan>"
        svg += "<text x=\(Self.quoted(left + plotWidth / 2)) y=\(Self.quoted(height - 14)) text-anchor=\"middle\">attempts per \(window.formattedForHumans): \(legend)</text>\n"
        svg += "</svg>\n"
        return svg
    }

    private static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func quoted(_ value: Double) -> String { "\"\(number(value))\"" }
}
