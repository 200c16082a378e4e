import RetryPolicyCore
import RetryPolicyYAML

extension PolicyTestSuite {
    /// Reads a policy test file. Every problem is reported with its
    /// position (unknown keys included, so a misspelt `expect` cannot turn a
    /// case into one that always passes).
    public init(yaml: String, path: String) throws(PolicyLoadError) {
        var reader = TestFileReader(path: path)
        guard let root = try YAMLParser.parse(yaml, path: path) else {
            throw PolicyLoadError(diagnostics: [Diagnostic(
                id: LoaderRule.documentCount.id, location: SourceLocation(file: path, line: 1, column: 1),
                message: "the test file is empty; expected `cases:` and/or `sequences:`")])
        }
        let suite = reader.suite(root)
        if !reader.problems.isEmpty { throw PolicyLoadError(diagnostics: reader.problems) }
        self = suite!
    }
}

/// Walks the YAML tree of a test file, collecting every problem through the
/// loader's ``FieldReader`` (all of them: a test file has no problem limit)
/// in the wording of test files.
struct TestFileReader {
    var path: String
    var reader = FieldReader(maximum: .max)
    var problems: [Diagnostic] { reader.diagnostics }

    init(path: String) { self.path = path }

    mutating func problem(_ rule: LoaderRule, _ location: SourceLocation, _ message: String, suggestion: String? = nil) {
        reader.report(rule, at: location, message, suggestion: suggestion)
    }

    mutating func mapping(_ node: YAMLNode, _ what: String, allowed: [String]) -> [(key: YAMLScalar, value: YAMLNode)]? {
        guard case .mapping(let entries, _) = node else {
            problem(.wrongType, node.location, "expected \(what) (a mapping), found \(node.kindDescription)")
            return nil
        }
        for (key, _) in entries where !allowed.contains(key.value) {
            let suggestion = Suggestion.didYouMean(key.value, among: allowed)
            problem(.unknownKey, key.location, "unknown key '\(key.value)' in \(what); expected one of \(allowed.joined(separator: ", "))", suggestion: suggestion)
        }
        return entries
    }

    mutating func string(_ node: YAMLNode, _ what: String) -> String? {
        guard case .scalar(let scalar) = node else {
            problem(.wrongType, node.location, "expected \(what), found \(node.kindDescription)")
            return nil
        }
        return scalar.value
    }

    mutating func integer(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, case .integer(let value) = scalar.resolved else {
            problem(.wrongType, node.location, "expected \(what) (an integer), found \(node.kindDescription)")
            return nil
        }
        guard range.contains(value) else {
            problem(.outOfRange, node.location, "\(what) must be within \(range.lowerBound)-\(range.upperBound), found \(value)")
            return nil
        }
        return value
    }

    mutating func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        guard case .scalar(let scalar) = node, case .bool(let value) = scalar.resolved else {
            problem(.wrongType, node.location, "expected \(what) (true or false), found \(node.kindDescription)")
            return nil
        }
        return value
    }

    mutating func duration(_ node: YAMLNode, _ what: String) -> Duration? {
        guard let text = string(node, what) else { return nil }
        switch DurationText.parse(text) {
        case .success(let duration): return duration
        case .failure(let error):
            problem(.invalidDuration, node.location, "expected \(what) as a duration such as 250ms or 1.5s, found \(error)")
            return nil
        }
    }

    mutating func choice<T: RawRepresentable>(_ node: YAMLNode, _ what: String, _ type: T.Type, all: [T]) -> T? where T.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = T(rawValue: text) { return value }
        problem(.invalidValue, node.location, "expected \(what) to be one of \(all.map(\.rawValue).joined(separator: ", ")), found '\(text)'")
        return nil
    }

    mutating func suite(_ root: YAMLNode) -> PolicyTestSuite? {
        guard let entries = mapping(root, "a policy test file", allowed: ["policy", "cases", "sequences"]) else { return nil }
        var reference = defaultPolicyReference()
        var referenceLocation: SourceLocation?
        var cases: [DecisionCase] = []
        var sequences: [SequenceCase] = []
        for (key, value) in entries {
            switch key.value {
            case "policy":
                reference = string(value, "the policy file") ?? reference
                referenceLocation = value.location
            case "cases":
                guard case .sequence(let items, _) = value else {
                    problem(.wrongType, value.location, "expected a list of cases, found \(value.kindDescription)")
                    continue
                }
                for item in items { if let parsed = decisionCase(item) { cases.append(parsed) } }
            case "sequences":
                guard case .sequence(let items, _) = value else {
                    problem(.wrongType, value.location, "expected a list of sequences, found \(value.kindDescription)")
                    continue
                }
                for item in items { if let parsed = sequenceCase(item) { sequences.append(parsed) } }
            default: break
            }
        }
        if cases.isEmpty && sequences.isEmpty && problems.isEmpty {
            problem(.missingKey, root.location, "the test file has no cases; add `cases:` or `sequences:`")
        }
        return PolicyTestSuite(path: path, policyReference: reference, policyLocation: referenceLocation, cases: cases, sequences: sequences)
    }

    /// `tmdb.yaml` for `tmdb.tests.yaml`.
    func defaultPolicyReference() -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        for suffix in [".tests.yaml", ".tests.yml"] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count)) + ".yaml"
        }
        return name
    }

    static let caseKeys = ["name", "status", "transport", "retry_after", "headers", "attempt", "elapsed", "method",
                           "idempotent", "endpoint", "previous_delay", "expect"]

    mutating func decisionCase(_ node: YAMLNode) -> DecisionCase? {
        guard let entries = mapping(node, "a case", allowed: Self.caseKeys) else { return nil }
        let fields = Dictionary(entries.map { ($0.key.value, $0.value) }, uniquingKeysWith: { first, _ in first })
        let name = fields["name"].flatMap { string($0, "the case name") } ?? "case at line \(node.location.line)"
        var status: Int?
        var transport: TransportFailure?
        if let value = fields["status"] { status = integer(value, "status", in: 100...599) }
        if let value = fields["transport"] { transport = choice(value, "transport", TransportFailure.self, all: TransportFailure.allCases) }
        if (fields["status"] == nil) == (fields["transport"] == nil) {
            problem(.incompleteRule, node.location, "case '\(name)' needs exactly one of `status` or `transport`")
            return nil
        }
        var headers = ResponseHeaders()
        if let value = fields["retry_after"] {
            if case .scalar(let scalar) = value { headers.append(name: "Retry-After", value: scalar.value) }
            else { problem(.wrongType, value.location, "expected a Retry-After value such as \"2\", found \(value.kindDescription)") }
        }
        if let value = fields["headers"], case .mapping(let pairs, _) = value {
            for (headerName, headerValue) in pairs {
                if let text = string(headerValue, "a header value") { headers.append(name: headerName.value, value: text) }
            }
        } else if let value = fields["headers"] {
            problem(.wrongType, value.location, "expected headers as a mapping of name to value, found \(value.kindDescription)")
        }
        var input = DecisionInput(outcome: status.map { .response(status: $0, headers: headers) } ?? .transport(transport ?? .unknown))
        if let value = fields["attempt"], let attempt = integer(value, "attempt", in: 1...1000) { input.attempt = attempt }
        if let value = fields["elapsed"], let elapsed = duration(value, "elapsed") { input.elapsed = elapsed }
        if let value = fields["method"], let method = string(value, "method") { input.method = HTTPMethod(rawValue: method) }
        if let value = fields["idempotent"], let marked = bool(value, "idempotent") { input.markedIdempotent = marked }
        if let value = fields["endpoint"] { input.endpoint = string(value, "endpoint") }
        if let value = fields["previous_delay"], let delay = duration(value, "previous_delay") { input.previousDelay = delay }
        guard let expectNode = fields["expect"] else {
            problem(.missingKey, node.location, "case '\(name)' has no `expect`; a case without expectations cannot fail")
            return nil
        }
        guard let expect = decisionExpectation(expectNode) else { return nil }
        if status != nil || transport != nil {
            return DecisionCase(name: name, location: node.location, input: input, expect: expect)
        }
        return nil
    }

    mutating func decisionExpectation(_ node: YAMLNode) -> DecisionExpectation? {
        guard let entries = mapping(node, "an expectation", allowed: ["action", "error", "reason", "delay", "rule"]) else { return nil }
        var expect = DecisionExpectation()
        for (key, value) in entries {
            switch key.value {
            case "action": expect.action = choice(value, "action", DecisionOutline.Action.self, all: DecisionOutline.Action.allCases)
            case "error": expect.error = string(value, "an error kind")
            case "reason": expect.reason = choice(value, "reason", StopReason.self, all: StopReason.allCases)
            case "delay":
                if case .mapping = value, let bounds = mapping(value, "delay bounds", allowed: ["min", "max"]) {
                    for (boundKey, boundValue) in bounds {
                        if boundKey.value == "min" { expect.delayMin = duration(boundValue, "delay.min") }
                        if boundKey.value == "max" { expect.delayMax = duration(boundValue, "delay.max") }
                    }
                } else if let exact = duration(value, "delay") {
                    expect.delayMin = exact
                    expect.delayMax = exact
                }
            case "rule": expect.ruleLine = integer(value, "rule (the line of the deciding rule)", in: 1...1_000_000)
            default: break
            }
        }
        if expect.action == nil && expect.error == nil && expect.reason == nil && expect.delayMin == nil && expect.delayMax == nil && expect.ruleLine == nil {
            problem(.missingKey, node.location, "the expectation checks nothing; give at least one of action, error, reason, delay, rule")
            return nil
        }
        return expect
    }

    mutating func sequenceCase(_ node: YAMLNode) -> SequenceCase? {
        let keys = ["name", "responses", "method", "idempotent", "endpoint", "latency", "seed", "expect"]
        guard let entries = mapping(node, "a sequence", allowed: keys) else { return nil }
        let fields = Dictionary(entries.map { ($0.key.value, $0.value) }, uniquingKeysWith: { first, _ in first })
        let name = fields["name"].flatMap { string($0, "the sequence name") } ?? "sequence at line \(node.location.line)"
        var responses: [ScriptedResponse] = []
        switch fields["responses"] {
        case .sequence(let items, _)? where items.isEmpty:
            problem(.outOfRange, node.location, "sequence '\(name)' has an empty `responses` list; give at least one response")
        case .sequence(let items, _)?:
            for item in items {
                guard let text = string(item, "a response") else { continue }
                switch ScriptedResponse.parse(text) {
                case .success(let response): responses.append(response)
                case .failure(let error): problem(.invalidValue, item.location, error.description)
                }
            }
        case .scalar(let scalar)?:
            switch ScriptedResponse.parseList(scalar.value) {
            case .success(let list): responses = list
            case .failure(let error): problem(.invalidValue, scalar.location, error.description)
            }
        case let other?:
            problem(.wrongType, other.location, "expected responses as a list such as [503, \"429; Retry-After: 2\", 200], found \(other.kindDescription)")
        case nil:
            problem(.missingKey, node.location, "sequence '\(name)' has no `responses`")
        }
        guard !responses.isEmpty else { return nil }
        var sequence = SequenceCase(name: name, location: node.location, responses: responses, expect: SequenceExpectation())
        if let value = fields["method"], let method = string(value, "method") { sequence.method = HTTPMethod(rawValue: method) }
        if let value = fields["idempotent"], let marked = bool(value, "idempotent") { sequence.markedIdempotent = marked }
        if let value = fields["endpoint"] { sequence.endpoint = string(value, "endpoint") }
        if let value = fields["latency"], let latency = duration(value, "latency") { sequence.latency = latency }
        if let value = fields["seed"], let seed = integer(value, "seed", in: 0...Int.max) { sequence.seed = UInt64(seed) }
        guard let expectNode = fields["expect"] else {
            problem(.missingKey, node.location, "sequence '\(name)' has no `expect`; a sequence without expectations cannot fail")
            return nil
        }
        guard let entriesExpect = mapping(expectNode, "a sequence expectation", allowed: ["result", "error", "reason", "attempts", "max_elapsed"]) else { return nil }
        var expect = SequenceExpectation()
        for (key, value) in entriesExpect {
            switch key.value {
            case "result":
                expect.result = choice(value, "result", DecisionOutline.Action.self, all: [.success, .stop])
            case "error": expect.error = string(value, "an error kind")
            case "reason": expect.reason = choice(value, "reason", StopReason.self, all: StopReason.allCases)
            case "attempts": expect.attempts = integer(value, "attempts", in: 1...1000)
            case "max_elapsed": expect.maxElapsed = duration(value, "max_elapsed")
            default: break
            }
        }
        if expect.result == nil && expect.error == nil && expect.reason == nil && expect.attempts == nil && expect.maxElapsed == nil {
            problem(.missingKey, expectNode.location, "the expectation checks nothing; give at least one of result, error, reason, attempts, max_elapsed")
            return nil
        }
        sequence.expect = expect
        return sequence
    }
}
