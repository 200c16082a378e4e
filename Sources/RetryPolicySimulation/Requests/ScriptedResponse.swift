import RetryPolicyCore
import RetryPolicyYAML

/// One scripted attempt outcome, written `503`, `429; Retry-After: 2`,
/// `503; Retry-After-Ms: 500; Retry-After: 1` (headers as curl writes
/// them), a transport class such as `timeout`, `condition NAME` for a
/// result the caller's code classifies into a condition the policy
/// declares, or `grpc:UNAVAILABLE` for a gRPC call that ended with that
/// status, optionally with metadata written as headers are
/// (`grpc:UNAVAILABLE; grpc-retry-pushback-ms: 200`).
public struct ScriptedResponse: Hashable, Sendable, CustomStringConvertible {
    public var outcome: AttemptOutcome

    public init(outcome: AttemptOutcome) { self.outcome = outcome }

    /// What an attempt that would take `latency` comes to under
    /// `timeLimit`, and how long it takes: an answer arriving before the
    /// limit is what it is; one that would arrive at or after it is cut
    /// there and becomes a `timeout`, as the executor cancels it. A
    /// scripted `timeout` is a server that never answers: it runs to the
    /// limit, or takes `latency` when there is none.
    package func resolve(latency: Duration, timeLimit: Duration?) -> (outcome: AttemptOutcome, duration: Duration) {
        guard let timeLimit else { return (outcome, latency) }
        if outcome == .transport(.timeout) || latency >= timeLimit { return (.transport(.timeout), timeLimit) }
        return (outcome, latency)
    }

    /// Why a scripted response could not be read.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var text: String
        public var reason: String
        public var description: String { "'\(text)' is not a response: \(reason)" }
    }

    /// Reads one response: a status, optionally followed by headers as
    /// curl writes them, each after a `;` (`429; Retry-After: 2`), or a
    /// transport class (`timeout`).
    ///
    /// The earlier form `429:retry-after=2` (headers as `name=value`
    /// after `:`) is refused with the same response in the curl form.
    public static func parse(_ text: some StringProtocol) -> Result<ScriptedResponse, ParseError> {
        let whole = String(text)
        if usesDeprecatedHeaderSyntax(whole) { return .failure(refusingDeprecated(whole)) }
        let parts = whole.split(separator: ";", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
        let head = parts[0]
        guard !head.isEmpty else {
            return .failure(ParseError(text: whole, reason: "expected a status (100-599) or a transport class"))
        }
        if let status = Int(head) {
            guard StatusPattern.validCodes.contains(status) else {
                return .failure(ParseError(text: whole, reason: "status \(status) is outside 100-599"))
            }
            var headers = ResponseHeaders()
            for field in parts.dropFirst() {
                switch ResponseHeaders.Field.parse(field) {
                case .success(let header): headers.append(name: header.name, value: header.value)
                case .failure(let error): return .failure(ParseError(text: whole, reason: "after ';', \(error)"))
                }
            }
            return .success(ScriptedResponse(outcome: .response(status: status, headers: headers)))
        }
        if head.hasPrefix(Self.grpcPrefix) {
            let name = String(head.dropFirst(Self.grpcPrefix.count).trimmingSpaces)
            guard let status = GRPCStatusCode.allCases.first(where: { $0.name == name }) else {
                let hint =
                    GRPCStatusCode(parsing: name).map { "; write grpc:\($0.name)" }
                    ?? Suggestion.closest(to: name, among: GRPCStatusCode.allCases.map(\.name)).map { "; did you mean grpc:\($0)?" }
                    ?? ""
                return .failure(
                    ParseError(
                        text: whole,
                        reason: "expected a gRPC status name after 'grpc:' (UNAVAILABLE, RESOURCE_EXHAUSTED, ...)\(hint)"))
            }
            var metadata = ResponseHeaders()
            for field in parts.dropFirst() {
                switch ResponseHeaders.Field.parse(field) {
                case .success(let entry): metadata.append(name: entry.name, value: entry.value)
                case .failure(let error): return .failure(ParseError(text: whole, reason: "after ';', \(error)"))
                }
            }
            return .success(ScriptedResponse(outcome: .grpc(status: status, metadata: metadata)))
        }
        if head.hasPrefix(Self.conditionPrefix) {
            let name = head.dropFirst(Self.conditionPrefix.count).trimmingSpaces
            guard PolicyBounds.isIdentifier(String(name)) else {
                return .failure(ParseError(text: whole, reason: "expected a condition name in snake_case after 'condition'"))
            }
            guard parts.count == 1 else {
                return .failure(ParseError(text: whole, reason: "a condition has no headers"))
            }
            return .success(ScriptedResponse(outcome: .condition(AttemptCondition(rawValue: String(name)))))
        }
        guard let failure = TransportFailure(rawValue: head) else {
            let classes = TransportFailure.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(
                ParseError(
                    text: whole, reason: "expected a status (100-599), 'condition NAME', 'grpc:STATUS' or one of \(classes)"))
        }
        guard parts.count == 1 else {
            return .failure(ParseError(text: whole, reason: "a transport failure has no headers"))
        }
        return .success(ScriptedResponse(outcome: .transport(failure)))
    }

    /// Whether `text` is written in the earlier header form,
    /// `429:retry-after=2`, rather than `429; Retry-After: 2`: such text
    /// is no longer read.
    package static func usesDeprecatedHeaderSyntax(_ text: some StringProtocol) -> Bool {
        let trimmed = Substring(text).trimmingSpaces
        guard let colon = trimmed.firstIndex(of: ":") else { return false }
        let head = trimmed[..<colon]
        return !head.contains(";") && Int(head.trimmingSpaces) != nil
    }

    /// The refusal of `429:retry-after=2`, which shows the same response
    /// written as curl writes headers, `429; retry-after: 2`.
    private static func refusingDeprecated(_ whole: String) -> ParseError {
        let parts = whole.split(separator: ":", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        let fields = parts.dropFirst().map { $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false) }
        var hint = "\(parts[0]); Retry-After: 2"
        if fields.allSatisfy({ $0.count == 2 && !$0[0].isEmpty }) {
            hint = ([parts[0]] + fields.map { "\($0[0]): \($0[1].trimmingSpaces)" }).joined(separator: "; ")
        }
        return ParseError(
            text: whole, reason: "the earlier header form is no longer read; write '\(hint)', headers as curl writes them, each after ';'")
    }

    /// Parses a comma-separated list: `503,503,429; Retry-After: 2,200`.
    /// A comma inside a header value (an HTTP-date such as
    /// `Wed, 21 Oct 2015 07:28:00 GMT`) stays in the value: a new response
    /// starts only where the text after a comma begins with a status or a
    /// transport class.
    public static func parseList(_ text: String) -> Result<[ScriptedResponse], ParseError> {
        var items: [String] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            if let last = items.last, last.contains(";"), !startsResponse(piece) {
                items[items.count - 1] += "," + piece
            } else {
                items.append(String(piece))
            }
        }
        var responses: [ScriptedResponse] = []
        for item in items {
            switch parse(item) {
            case .success(let response): responses.append(response)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(responses)
    }

    /// Whether a piece of a comma-separated list begins a new response: a
    /// three-digit status alone or before `;` or `:`, or a transport class.
    private static func startsResponse(_ piece: Substring) -> Bool {
        let trimmed = piece.trimmingSpaces
        let head = trimmed.prefix { $0 != ";" && $0 != ":" }.trimmingSpaces
        if head.count == 3, head.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        return TransportFailure(rawValue: String(trimmed)) != nil || trimmed.hasPrefix(conditionPrefix)
            || trimmed.hasPrefix(grpcPrefix)
    }

    /// How a condition is written: `condition malformed_body`.
    static let conditionPrefix = "condition "

    /// How a gRPC status is written: `grpc:UNAVAILABLE`.
    static let grpcPrefix = "grpc:"

    public var description: String {
        switch outcome {
        case .response(let status, let headers):
            ([String(status)] + headers.fields.map { "\($0.name): \($0.value)" }).joined(separator: "; ")
        case .transport(let failure): failure.rawValue
        case .condition(let condition): "condition \(condition.rawValue)"
        case .grpc(let status, let metadata):
            ([Self.grpcPrefix + status.name] + metadata.fields.map { "\($0.name): \($0.value)" }).joined(separator: "; ")
        }
    }
}
