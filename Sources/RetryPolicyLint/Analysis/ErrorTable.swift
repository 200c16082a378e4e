import RetryPolicyCore

/// The status / transport -> SDKError -> retry table of a policy, in the
/// shape of a mobile SDK's "Error Taxonomy Mapping" documentation table:
/// generated from the policy, so the document can no longer drift from the
/// code.
public struct ErrorTable: Sendable {
    public struct Row: Sendable {
        /// Status codes (compressed), transport classes, a declared
        /// condition, or gRPC statuses; exactly one is given.
        public var statuses: [ClosedRange<Int>]
        public var transports: [TransportFailure]
        public var condition: AttemptCondition? = nil
        public var grpc: [GRPCStatusCode] = []
        /// `nil` for a success.
        public var error: SDKError.Kind?
        /// The error's name per platform, in ``ErrorTable/platforms`` order
        /// (the kind itself when no platform is chosen).
        public var names: [String]
        /// Where the rules (or default) that decide the row are written.
        public var rules: [SourceLocation]
        public var decision: DecisionOutline
        public var honorsRetryAfter: Bool
        public var explanation: String

        public var inputText: String {
            if !statuses.isEmpty { return statuses.map { IntegerRanges.text($0) }.joined(separator: ", ") }
            if let condition { return "Condition \(condition.rawValue)" }
            if !grpc.isEmpty { return "gRPC " + grpc.map(\.name).joined(separator: ", ") }
            return transports.map(ErrorTable.transportLabel).joined(separator: "/")
        }

        public var retries: Bool { decision.action == .retry }
    }

    public var policy: Policy
    public var platforms: [String]
    public var rows: [Row]

    /// Builds the table from first-attempt decisions for a GET without
    /// headers. Platforms default to the policy's own, else those it names
    /// errors for; with none, the error column shows the kinds.
    public init(policy: Policy, platforms: [String]? = nil) {
        self.policy = policy
        let chosen = platforms ?? (policy.platform.map { [$0] } ?? policy.errorNames.platforms)
        self.platforms = chosen
        let decider = RetryDecider(policy: policy.withoutBudget)
        struct Key: Hashable {
            var signature: DecisionOutline.Signature
            var honors: Bool
        }
        func describe(_ input: PolicyInput) -> (Key, DecisionOutline, Bool) {
            let outline = decider.outline(DecisionInput(outcome: input.outcome, attempt: 1, method: .get))
            let honors = decider.compiledPolicy.decidingAction(for: input, method: .get)?.honorsRetryAfter ?? policy.retryAfter.honor
            // gRPC's pushback is read whatever headers the policy names.
            let readsDelay: Bool = if case .grpc = input { true } else { !policy.retryAfter.headers.isEmpty }
            let shownHonors = outline.action != .success && honors && readsDelay
            return (Key(signature: outline.signature, honors: shownHonors), outline, shownHonors)
        }
        var rows: [Row] = []
        var lastKey: Key?
        for code in StatusPattern.validCodes {
            let (key, outline, honors) = describe(.status(code))
            if key == lastKey, let last = rows.last, last.statuses.last?.upperBound == code - 1 {
                rows[rows.count - 1].statuses[rows[rows.count - 1].statuses.count - 1] = last.statuses.last!.lowerBound...code
                if let rule = outline.rule, !rows[rows.count - 1].rules.contains(rule) { rows[rows.count - 1].rules.append(rule) }
            } else {
                rows.append(Row(statuses: [code...code], transports: [], error: outline.error, names: [], rules: outline.rule.map { [$0] } ?? [],
                                decision: outline, honorsRetryAfter: honors, explanation: ""))
            }
            lastKey = key
        }
        var transportRows: [Key: Int] = [:]
        for failure in TransportFailure.allCases {
            let (key, outline, _) = describe(.transport(failure))
            if let index = transportRows[key] {
                rows[index].transports.append(failure)
                if let rule = outline.rule, !rows[index].rules.contains(rule) { rows[index].rules.append(rule) }
            } else {
                transportRows[key] = rows.count
                rows.append(Row(statuses: [], transports: [failure], error: outline.error, names: [], rules: outline.rule.map { [$0] } ?? [],
                                decision: outline, honorsRetryAfter: false, explanation: ""))
            }
        }
        // gRPC statuses, for a policy with gRPC rules, grouped as transports
        // are: by what decides them.
        var grpcRows: [Key: Int] = [:]
        for status in policy.hasGRPCRules ? GRPCStatusCode.allCases : [] {
            let (key, outline, honors) = describe(.grpc(status))
            if let index = grpcRows[key] {
                rows[index].grpc.append(status)
                if let rule = outline.rule, !rows[index].rules.contains(rule) { rows[index].rules.append(rule) }
            } else {
                grpcRows[key] = rows.count
                rows.append(Row(statuses: [], transports: [], grpc: [status], error: outline.error, names: [],
                                rules: outline.rule.map { [$0] } ?? [], decision: outline, honorsRetryAfter: honors, explanation: ""))
            }
        }
        // One row per declared condition: code classifies results into
        // them, so the table is where a reader sees what each means.
        for condition in policy.conditions {
            let outline = decider.outline(DecisionInput(outcome: .condition(condition), attempt: 1, method: .get))
            rows.append(Row(statuses: [], transports: [], condition: condition, error: outline.error, names: [],
                            rules: outline.rule.map { [$0] } ?? [], decision: outline, honorsRetryAfter: false, explanation: ""))
        }
        for index in rows.indices {
            let row = rows[index]
            if chosen.isEmpty {
                rows[index].names = [row.error?.rawValue ?? "Success"]
            } else {
                rows[index].names = chosen.map { platform in
                    guard let kind = row.error else { return "Success" }
                    return policy.platformName(of: kind, on: platform) ?? kind.rawValue
                }
            }
            rows[index].explanation = Self.explanation(for: row, policy: policy)
        }
        self.rows = rows
    }

    /// `Yes (up to 4 attempts)`, `No`, `No (single attempt)`, `N/A`.
    package static func retryText(_ row: Row, policy: Policy) -> String {
        switch row.decision.action {
        case .success: return "N/A"
        case .retry: return "Yes (up to \(policy.attempts) attempts)"
        case .stop:
            switch row.decision.reason {
            case .attemptsExhausted?: return "No (single attempt)"
            case .notIdempotent?: return "No (not idempotent)"
            default: return "No"
            }
        }
    }

    static func explanation(for row: Row, policy: Policy) -> String {
        var parts: [String] = []
        if !row.statuses.isEmpty {
            if row.statuses.count == 1, row.statuses[0].count == 1 {
                parts.append(reasonPhrase(row.statuses[0].lowerBound))
            } else {
                var classes: [Int] = []
                for range in row.statuses {
                    for leading in (range.lowerBound / 100)...(range.upperBound / 100) where !classes.contains(leading) {
                        classes.append(leading)
                    }
                }
                let phrases = classes.map(classPhrase)
                parts.append(phrases.enumerated().map { $0.offset == 0 ? $0.element : $0.element.lowercased() }.joined(separator: " / "))
            }
        } else if row.condition != nil {
            parts.append("Classified by the caller's code")
        } else if !row.grpc.isEmpty {
            parts.append(row.grpc.count == 1 ? "A gRPC call ended with \(row.grpc[0].name)" : "A gRPC call ended with one of these statuses")
        } else {
            parts.append(row.transports.count == 1 ? transportPhrase(row.transports[0]) : "Network connectivity failure")
        }
        switch row.decision.action {
        case .success: break
        case .retry:
            let backoff = policy.backoff
            parts.append("backoff \(DecisionText.delay(backoff.initial...max(backoff.initial, backoff.max ?? Backoff.ceiling))), \(backoff.jitter.rawValue) jitter")
        case .stop:
            if row.decision.reason == .attemptsExhausted { parts.append("client does not retry") }
        }
        // Servers send Retry-After with 429 and 503 (RFC 9110 §10.2.3), so
        // the table mentions it where it applies, as the seed table does.
        let carriesRetryAfter = row.statuses.contains { $0.contains(429) || $0.contains(503) }
        let cap = policy.retryAfter.cap.map { " (cap \($0.formattedForHumans))" } ?? ""
        if row.honorsRetryAfter && carriesRetryAfter {
            parts.append("respect Retry-After\(cap)")
        }
        if row.honorsRetryAfter && !row.grpc.isEmpty && row.decision.action == .retry {
            parts.append("respect \(GRPCStatusCode.pushbackKey)\(cap)")
        }
        var text = parts.filter { !$0.isEmpty }.joined(separator: "; ")
        if let first = text.first { text = first.uppercased() + text.dropFirst() }
        return text
    }

    package static func transportLabel(_ failure: TransportFailure) -> String {
        switch failure {
        case .timeout: "Timeout"
        case .connectionLost: "Connection lost"
        case .offline: "Offline"
        case .dns: "DNS"
        case .tls: "SSL/TLS"
        case .connectionRefused: "Connection refused"
        case .cancelled: "Cancelled"
        case .invalidURL: "Invalid URL"
        case .decoding: "Decoding"
        case .unknown: "Unknown"
        }
    }

    static func transportPhrase(_ failure: TransportFailure) -> String {
        switch failure {
        case .timeout: "Request exceeded timeout budget"
        case .connectionLost: "Connection dropped mid-response"
        case .offline: "Device offline"
        case .dns: "DNS lookup failed"
        case .tls: "SSL certificate validation failed"
        case .connectionRefused: "Connection refused"
        case .cancelled: "Cancelled by the caller"
        case .invalidURL: "Request could not be built"
        case .decoding: "Response could not be decoded"
        case .unknown: "Unclassified failure"
        }
    }

    static func classPhrase(_ leading: Int) -> String {
        switch leading {
        case 1: "Informational"
        case 2: "Success"
        case 3: "Redirection"
        case 4: "Client error"
        default: "Server error"
        }
    }

    /// RFC 9110 reason phrases of the codes policies usually name.
    static func reasonPhrase(_ code: Int) -> String {
        let phrases: [Int: String] = [
            200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently",
            302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
            413: "Content Too Large", 422: "Unprocessable Content", 425: "Too Early", 429: "Too Many Requests",
            500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
            504: "Gateway Timeout", 505: "HTTP Version Not Supported",
        ]
        return phrases[code] ?? classPhrase(code / 100)
    }

    /// The table as GitHub-flavoured Markdown. Platform, error and
    /// condition names come from the policy file (or the command line) and
    /// are written as `MarkdownCell` says, so none can break the table.
    public var markdown: String {
        let errorHeaders = platforms.count <= 1 ? ["SDK Error"] : platforms.map { "SDK Error (\(MarkdownCell.text($0)))" }
        let headers = ["HTTP Status"] + errorHeaders + ["Retry?", "Explanation"]
        var lines = ["| " + headers.joined(separator: " | ") + " |"]
        lines.append("|" + headers.map { String(repeating: "-", count: $0.count + 2) }.joined(separator: "|") + "|")
        for row in rows {
            let names = row.names.map { row.error == nil ? MarkdownCell.text($0) : MarkdownCell.code($0) }
            let cells = [MarkdownCell.text(row.inputText)] + names
                + [MarkdownCell.text(Self.retryText(row, policy: policy)), MarkdownCell.text(row.explanation)]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The table as JSON, for tools.
    public var json: JSONValue {
        .object([
            ("policy", .string(policy.name)),
            ("platforms", .array(platforms.map(JSONValue.string))),
            ("rows", .array(rows.map { row in
                .object([
                    ("input", .string(row.inputText)),
                ] + (row.condition.map { [("condition", JSONValue.string($0.rawValue))] } ?? [])
                    + (row.grpc.isEmpty ? [] : [("grpc", JSONValue.array(row.grpc.map { .string($0.name) }))]) + [
                    ("statuses", .array(row.statuses.map { .array([.int($0.lowerBound), .int($0.upperBound)]) })),
                    ("transports", .array(row.transports.map { .string($0.rawValue) })),
                    ("error", .optional(row.error?.rawValue)),
                    ("names", .object(zip(platforms, row.names).map { ($0, row.error == nil ? .null : .string($1)) })),
                    ("rules", .array(row.rules.map { .string("\($0.file):\($0.line)") })),
                    ("action", .string(row.decision.action.rawValue)),
                    ("retry", .bool(row.retries)),
                    ("reason", .optional(row.decision.reason?.rawValue)),
                    ("honors_retry_after", .bool(row.honorsRetryAfter)),
                    ("explanation", .string(row.explanation)),
                ])
            })),
        ])
    }
}
