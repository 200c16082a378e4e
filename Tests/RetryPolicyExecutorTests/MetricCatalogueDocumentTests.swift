import Foundation
import RetryPolicyMetricCatalogue
import Testing

/// docs/observability.md is the one list of the package's metrics, and
/// `MetricCatalogue` is where the code takes them from: the two must say
/// the same thing.
@Suite("docs/observability.md and MetricCatalogue list the same metrics")
struct MetricCatalogueDocumentTests {
    /// A metric as a table of the document shows it.
    struct DocumentedMetric: Equatable {
        var name: String
        var instrument: String
        /// `nil` when the table has no unit column.
        var unit: String?
        var attributes: [String]
    }

    static func document() throws -> String {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("docs/observability.md"), encoding: .utf8)
    }

    static func cells(_ line: Substring) -> [String] {
        line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func unquoted(_ text: String) -> String { text.replacingOccurrences(of: "`", with: "") }

    /// The attribute keys the document names in words ("policy is
    /// `retry_policy.policy`, endpoint `retry_policy.endpoint`, ..."), by
    /// those words.
    static func keysByWord(_ document: String) throws -> [String: String] {
        let start = try #require(document.range(of: "The attribute keys:"))
        let rest = document[start.upperBound...].replacingOccurrences(of: "\n", with: " ")
        // The list is the sentence's first: it ends at the first full stop.
        let paragraph = rest[..<(rest.range(of: ". ")?.lowerBound ?? rest.endIndex)]
        // Drop the value lists in parentheses, then read "words `key`".
        let plain = String(paragraph).replacingOccurrences(of: #"\([^)]*\)"#, with: "", options: .regularExpression)
        var keys: [String: String] = [:]
        let pattern = try NSRegularExpression(pattern: #"([a-z][a-z ]*?) (?:is )?`([a-z_.]+)`"#)
        let text = plain as NSString
        for match in pattern.matches(in: plain, range: NSRange(location: 0, length: text.length)) {
            let word = text.substring(with: match.range(at: 1)).trimmingCharacters(in: .whitespaces)
            keys[word] = text.substring(with: match.range(at: 2))
        }
        return keys
    }

    /// Every row of every table whose first column is `metric`.
    static func documentedMetrics(_ document: String) throws -> [DocumentedMetric] {
        let words = try keysByWord(document)
        var metrics: [DocumentedMetric] = []
        var header: [String]?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                header = nil
                continue
            }
            let row = cells(line)
            if row.first == "metric" {
                header = row
                continue
            }
            guard let header, !row.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) else { continue }
            func column(_ name: String) -> String? { header.firstIndex(of: name).map { row[$0] } }
            let attributeText = (column("attributes") ?? "")
                .replacingOccurrences(of: #"\([^)]*\)"#, with: "", options: .regularExpression)
            let attributes = try attributeText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
                .map { item in
                    if item.hasPrefix("`") { return unquoted(item) }
                    return try #require(words[item], "\(row[0]): no attribute key for \"\(item)\"")
                }
            metrics.append(
                DocumentedMetric(
                    name: unquoted(row[0]), instrument: column("instrument") ?? "", unit: column("unit"),
                    attributes: attributes))
        }
        return metrics
    }

    @Test("every documented metric is in the catalogue with its instrument, unit and attributes, and the reverse")
    func documentMatchesCatalogue() throws {
        let documented = try Self.documentedMetrics(Self.document())
        #expect(!documented.isEmpty)
        #expect(Set(documented.map(\.name)).count == documented.count, "a metric is listed twice")
        let catalogue = Dictionary(uniqueKeysWithValues: MetricCatalogue.all.map { ($0.name, $0) })
        #expect(catalogue.count == MetricCatalogue.all.count, "a metric is in the catalogue twice")
        for metric in documented {
            guard let entry = catalogue[metric.name] else {
                Issue.record("\(metric.name) is documented but not in MetricCatalogue")
                continue
            }
            #expect(metric.instrument == entry.instrument.rawValue, "\(metric.name)")
            if let unit = metric.unit {
                #expect(unit == (entry.unit ?? ""), "\(metric.name)")
            } else {
                #expect(entry.unit == nil, "\(metric.name): the catalogue has a unit the document does not show")
            }
            #expect(metric.attributes == entry.attributes, "\(metric.name)")
        }
        let undocumented = Set(catalogue.keys).subtracting(documented.map(\.name))
        #expect(undocumented.isEmpty, "in MetricCatalogue but not in docs/observability.md: \(undocumented.sorted())")
    }

    @Test("the attribute keys the document names are the ones the catalogue's metrics carry")
    func attributeKeysMatch() throws {
        let document = try Self.document()
        let documented = Set(try Self.keysByWord(document).values)
            .union(try Self.documentedMetrics(document).flatMap(\.attributes))
        let catalogued = Set(MetricCatalogue.all.flatMap(\.attributes))
        #expect(documented.subtracting(catalogued).isEmpty, "documented only: \(documented.subtracting(catalogued).sorted())")
        #expect(catalogued.subtracting(documented).isEmpty, "catalogued only: \(catalogued.subtracting(documented).sorted())")
    }

    @Test("the executor's label prefix replaces only the package's prefix")
    func prefixedNames() {
        #expect(MetricCatalogue.attempts.name == "retry_policy.client.attempts")
        #expect(MetricCatalogue.attempts.name(prefix: "checkout") == "checkout.client.attempts")
    }

    @Test("a call site's values are paired with the catalogue's keys, in order")
    func dimensions() {
        let pairs = MetricCatalogue.waits.dimensions("tmdb", "search", "backoff")
        #expect(pairs.map(\.0) == ["retry_policy.policy", "retry_policy.endpoint", "retry_policy.wait.cause"])
        #expect(pairs.map(\.1) == ["tmdb", "search", "backoff"])
    }
}
