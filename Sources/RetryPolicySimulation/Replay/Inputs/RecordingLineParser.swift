import RetryPolicyCore

/// A reader of a line-oriented recording (nginx, Envoy, JSONL): one line
/// in, a record, nothing (a blank line), or a located warning out.
protocol RecordingLineParser {
    mutating func parse(line: ArraySlice<UInt8>, location: SourceLocation) -> Result<RecordedRequest?, Diagnostic>
}
