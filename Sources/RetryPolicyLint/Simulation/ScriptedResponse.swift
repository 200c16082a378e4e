import RetryPolicyCore

/// One scripted attempt outcome, written `503`, `429:retry-after=2`,
/// `503:retry-after-ms=500:retry-after=1` or a transport class such as
/// `timeout`.
public struct ScriptedResponse: Hashable, Sendable, CustomStringConvertible {
    public var outcome: AttemptOutcome

    public init(outcome: AttemptOutcome) { self.outcome = outcome }

    /// What an attempt that would take `latency` comes to under
    /// `timeLimit`, and how long it takes: an answer arriving before the
    /// limit is what it is; one that would arrive at or after it is cut
    /// there and becomes a `timeout`, as the executor cancels it. A
    /// scripted `timeout` is a server that never answers: it runs to the
    /// limit, or takes `latency` when there is none.
    public func resolve(latency: Duration, timeLimit: Duration?) -> (outcome: AttemptOutcome, duration: Duration) {
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

    public static func parse(_ text: some StringProtocol) -> Result<ScriptedResponse, ParseError> {
        let whole = String(text)
        let parts = whole.split(separator: ":", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
        guard let head = parts.first, !head.isEmpty else {
            return .failure(ParseError(text: whole, reason: "expected a status (100-599) or a transport class"))
        }
        if let status = Int(head) {
            guard StatusPattern.validCodes.contains(status) else {
                return .failure(ParseError(text: whole, reason: "status \(status) is outside 100-599"))
            }
            var headers = ResponseHeaders()
            for field in parts.dropFirst() {
                let pair = field.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, !pair[0].isEmpty else {
                    return .failure(ParseError(text: whole, reason: "expected header=value after ':', found '\(field)'"))
                }
                headers.append(name: String(pair[0]), value: String(pair[1]))
            }
            return .success(ScriptedResponse(outcome: .response(status: status, headers: headers)))
        }
        guard let failure = TransportFailure(rawValue: head) else {
            let classes = TransportFailure.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(ParseError(text: whole, reason: "expected a status (100-599) or one of \(classes)"))
        }
        guard parts.count == 1 else {
            return .failure(ParseError(text: whole, reason: "a transport failure has no headers"))
        }
        return .success(ScriptedResponse(outcome: .transport(failure)))
    }

    /// Parses a comma-separated list: `503,503,429:retry-after=2,200`.
    public static func parseList(_ text: String) -> Result<[ScriptedResponse], ParseError> {
        var responses: [ScriptedResponse] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            switch parse(item) {
            case .success(let response): responses.append(response)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(responses)
    }

    public var description: String {
        switch outcome {
        case .response(let status, let headers):
            ([String(status)] + headers.fields.map { "\($0.name)=\($0.value)" }).joined(separator: ":")
        case .transport(let failure): failure.rawValue
        }
    }
}
