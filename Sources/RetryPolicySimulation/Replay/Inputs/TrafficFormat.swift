/// The recording formats replay reads.
public enum TrafficFormat: String, CaseIterable, Hashable, Sendable {
    /// HTTP Archive 1.2 (browser devtools, mitmproxy's hardump, k6, Charles).
    case har
    /// nginx access logs: `combined`, its common extensions, or a given `log_format`.
    case nginx
    /// Envoy's default access-log format.
    case envoy
    /// One JSON object per line (docs/replay.md lists the fields).
    case jsonl

    /// The format of a recording, told from its first bytes: a JSON
    /// document with `"log"` is HAR, JSON objects one per line are JSONL,
    /// `[2026-...T...]` followed by a quoted request line is Envoy, and a
    /// line nginx's known formats match is nginx. `nil` when none fits.
    package static func detect(_ head: ArraySlice<UInt8>, nginx: NginxLogFormat? = nil) -> TrafficFormat? {
        var index = head.startIndex
        while index < head.endIndex, [32, 9, 10, 13, 0xEF, 0xBB, 0xBF].contains(head[index]) { index += 1 }
        guard index < head.endIndex else { return nil }
        let lineEnd = head[index...].firstIndex(of: 10) ?? head.endIndex
        let line = head[index..<lineEnd]
        if head[index] == UInt8(ascii: "{") {
            // A HAR document begins `{"log": {`; a JSONL line is a whole object.
            if (try? JSONNode.parse(line))?.isObject == true, (try? JSONNode.parse(line))?["log"] == nil { return .jsonl }
            let window = head[index..<min(head.endIndex, index + 4096)]
            if contains(window, "\"log\"") { return .har }
            return nil
        }
        let text = Substring(decoding: line, as: UTF8.self)
        if EnvoyLogParser.looksLikeEnvoy(text) { return .envoy }
        if let nginx, nginx.match(line) != nil { return .nginx }
        for known in NginxLogFormat.known where known.match(line) != nil { return .nginx }
        return nil
    }

    private static func contains(_ bytes: ArraySlice<UInt8>, _ needle: String) -> Bool {
        let pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return false }
        var index = bytes.startIndex
        while index + pattern.count <= bytes.endIndex {
            if bytes[index] == pattern[0], bytes[index..<index + pattern.count].elementsEqual(pattern) { return true }
            index += 1
        }
        return false
    }
}
