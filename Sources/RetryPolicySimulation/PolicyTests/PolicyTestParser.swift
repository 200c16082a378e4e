import RetryPolicyCore
import RetryPolicyYAML

extension PolicyTestSuite {
    /// Reads a policy test file. Every problem is reported with its
    /// position (unknown keys included, so a misspelt `expect` cannot turn a
    /// case into one that always passes).
    public init(yaml: String, path: String) throws(PolicyLoadError) {
        var reader = TestFileReader(path: path)
        guard let root = try YAMLParser.parse(yaml, path: path) else {
            reader.reader.report(
                .documentCount, at: SourceLocation(file: path, line: 1, column: 1), "the test file is empty; expected `cases:` and/or `sequences:`")
            throw PolicyLoadError(diagnostics: reader.problems)
        }
        let suite = reader.suite(root)
        if !reader.problems.isEmpty { throw PolicyLoadError(diagnostics: reader.problems) }
        self = suite!
    }
}

/// Walks the YAML tree of a test file through the loader's ``FieldReader``,
/// the reader of policy files, so that a test file's problems read like a
/// policy file's (key path, what was expected, what was found, a
/// suggestion), collecting every one (a test file has no problem limit).
struct TestFileReader {
    var path: String
    var reader = FieldReader(maximum: .max)
    var problems: [Diagnostic] { reader.diagnostics }

    init(path: String) { self.path = path }

    static let fileKeys = PolicyFileKind.testsFileKeys

    mutating func suite(_ root: YAMLNode) -> PolicyTestSuite? {
        guard let fields = reader.fields(root, at: "", allowed: Self.fileKeys, what: "a mapping with 'cases' or 'sequences'") else {
            return nil
        }
        var reference = defaultPolicyReference()
        var referenceLocation: SourceLocation?
        var cases: [DecisionCase] = []
        var sequences: [SequenceCase] = []
        if let value = fields["policy"] {
            reference = reader.text(value, at: "policy", what: "a policy file path") ?? reference
            referenceLocation = value.location
        }
        if let value = fields["cases"], let items = reader.list(value, at: "cases", what: "a list of cases") {
            for (index, item) in items.enumerated() {
                if let parsed = decisionCase(item, at: "cases[\(index)]") { cases.append(parsed) }
            }
        }
        if let value = fields["sequences"], let items = reader.list(value, at: "sequences", what: "a list of sequences") {
            for (index, item) in items.enumerated() {
                if let parsed = sequenceCase(item, at: "sequences[\(index)]") { sequences.append(parsed) }
            }
        }
        if cases.isEmpty && sequences.isEmpty && problems.isEmpty {
            reader.report(.missingKey, at: root.location, "the test file has no cases; add `cases:` or `sequences:`")
        }
        return PolicyTestSuite(path: path, policyReference: reference, policyLocation: referenceLocation, cases: cases, sequences: sequences)
    }

    /// `tmdb.yaml` for `tmdb.tests.yaml`.
    func defaultPolicyReference() -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return PolicyFileName.testedBase(of: name).map { $0 + ".yaml" } ?? name
    }

    static let caseKeys = ["name", "status", "transport", "retry_after", "headers", "attempt", "elapsed", "method",
                           "idempotent", "endpoint", "previous_delay", "expect"]

    mutating func decisionCase(_ node: YAMLNode, at keyPath: String) -> DecisionCase? {
        guard let fields = reader.fields(node, at: keyPath, allowed: Self.caseKeys, what: "a case mapping") else { return nil }
        let name = fields["name"].flatMap { reader.text($0, at: fields.path("name"), what: "a case name") } ?? "case at line \(node.location.line)"
        var status: Int?
        var transport: TransportFailure?
        if let value = fields["status"] { status = reader.integer(value, at: fields.path("status"), in: 100...599) }
        if let value = fields["transport"] { transport = reader.choice(value, at: fields.path("transport"), of: TransportFailure.self) }
        if (fields["status"] == nil) == (fields["transport"] == nil) {
            reader.report(.incompleteRule, at: node.location, "case '\(name)' needs exactly one of `status` or `transport`")
            return nil
        }
        var headers = ResponseHeaders()
        if let value = fields["retry_after"],
            let text = reader.text(value, at: fields.path("retry_after"), what: "a Retry-After value such as \"2\"")
        {
            headers.append(name: "Retry-After", value: text)
        }
        if let value = fields["headers"] {
            if case .mapping(let pairs, _) = value {
                for (headerName, headerValue) in pairs {
                    if let text = reader.text(headerValue, at: "\(fields.path("headers")).\(headerName.value)", what: "a header value") {
                        headers.append(name: headerName.value, value: text)
                    }
                }
            } else {
                reader.expected("a mapping of header names to values", for: fields.path("headers"), found: value)
            }
        }
        var input = DecisionInput(outcome: status.map { .response(status: $0, headers: headers) } ?? .transport(transport ?? .unknown))
        if let value = fields["attempt"], let attempt = reader.integer(value, at: fields.path("attempt"), in: 1...1000) { input.attempt = attempt }
        if let value = fields["elapsed"], let elapsed = reader.duration(value, at: fields.path("elapsed")) { input.elapsed = elapsed }
        if let value = fields["method"], let method = reader.text(value, at: fields.path("method"), what: "an HTTP method") {
            input.method = HTTPMethod(rawValue: method)
        }
        if let value = fields["idempotent"], let marked = reader.bool(value, at: fields.path("idempotent")) { input.markedIdempotent = marked }
        if let value = fields["endpoint"] { input.endpoint = reader.text(value, at: fields.path("endpoint"), what: "an endpoint name") }
        if let value = fields["previous_delay"], let delay = reader.duration(value, at: fields.path("previous_delay")) {
            input.previousDelay = delay
        }
        guard let expectNode = fields["expect"] else {
            reader.report(.missingKey, at: node.location, "case '\(name)' has no `expect`; a case without expectations cannot fail")
            return nil
        }
        guard let expect = decisionExpectation(expectNode, at: fields.path("expect")) else { return nil }
        if status != nil || transport != nil {
            return DecisionCase(name: name, location: node.location, input: input, expect: expect)
        }
        return nil
    }

    mutating func decisionExpectation(_ node: YAMLNode, at keyPath: String) -> DecisionExpectation? {
        guard let fields = reader.fields(node, at: keyPath, allowed: ["action", "error", "reason", "delay", "rule"], what: "an expectation mapping")
        else { return nil }
        var expect = DecisionExpectation()
        if let value = fields["action"] { expect.action = reader.choice(value, at: fields.path("action"), among: [Rule.Action.success, .retry, .stop]) }
        if let value = fields["error"] { expect.error = reader.text(value, at: fields.path("error"), what: "an error kind") }
        if let value = fields["reason"] { expect.reason = reader.choice(value, at: fields.path("reason"), of: StopReason.self) }
        if let value = fields["delay"] {
            if case .mapping = value {
                if let bounds = reader.fields(value, at: fields.path("delay"), allowed: ["min", "max"]) {
                    if let bound = bounds["min"] { expect.delayMin = reader.duration(bound, at: bounds.path("min")) }
                    if let bound = bounds["max"] { expect.delayMax = reader.duration(bound, at: bounds.path("max")) }
                }
            } else if let exact = reader.duration(value, at: fields.path("delay")) {
                expect.delayMin = exact
                expect.delayMax = exact
            }
        }
        if let value = fields["rule"] { expect.rule = ruleReference(value, at: fields.path("rule")) }
        if expect.action == nil && expect.error == nil && expect.reason == nil && expect.delayMin == nil && expect.delayMax == nil && expect.rule == nil {
            reader.report(.missingKey, at: node.location, "the expectation checks nothing; give at least one of action, error, reason, delay, rule")
            return nil
        }
        return expect
    }

    /// `rule: 39`, or a location as `decide` prints it:
    /// `rule: policies/tmdb.yaml:39` (`:5`, a column, may follow).
    mutating func ruleReference(_ node: YAMLNode, at keyPath: String) -> RuleReference? {
        if case .scalar(let scalar) = node, case .integer = scalar.resolved {
            return reader.integer(node, at: keyPath, in: 1...RuleReference.maximum).map { RuleReference(line: $0) }
        }
        if case .scalar(let scalar) = node, case .string(let text) = scalar.resolved, let reference = RuleReference(parsing: text) {
            return reference
        }
        var rule = LoaderRule.wrongType
        if case .scalar = node { rule = .invalidValue }
        reader.expected(
            "a line from 1 to \(RuleReference.maximum) (39) or a location as decide prints it (policies/tmdb.yaml:39)", for: keyPath,
            found: node, rule: rule)
        return nil
    }

    static let sequenceKeys = ["name", "responses", "method", "idempotent", "endpoint", "latency", "seed", "expect"]
    static let sequenceExpectationKeys = ["result", "error", "reason", "attempts", "max_elapsed"]

    mutating func sequenceCase(_ node: YAMLNode, at keyPath: String) -> SequenceCase? {
        guard let fields = reader.fields(node, at: keyPath, allowed: Self.sequenceKeys, what: "a sequence mapping") else { return nil }
        let name = fields["name"].flatMap { reader.text($0, at: fields.path("name"), what: "a sequence name") }
            ?? "sequence at line \(node.location.line)"
        var responses: [ScriptedResponse] = []
        switch fields["responses"] {
        case .sequence(let items, _)? where items.isEmpty:
            reader.report(.outOfRange, at: node.location, "sequence '\(name)' has an empty `responses` list; give at least one response")
        case .sequence(let items, _)?:
            for item in items {
                guard let text = reader.text(item, at: fields.path("responses"), what: "a response") else { continue }
                switch ScriptedResponse.parse(text) {
                case .success(let response): responses.append(response)
                case .failure(let error): reader.report(.invalidValue, at: item.location, error.description)
                }
            }
        case .scalar(let scalar)?:
            switch ScriptedResponse.parseList(scalar.value) {
            case .success(let list): responses = list
            case .failure(let error): reader.report(.invalidValue, at: scalar.location, error.description)
            }
        case let other?:
            reader.expected("a list of responses such as [503, \"429; Retry-After: 2\", 200]", for: fields.path("responses"), found: other)
        case nil:
            reader.report(.missingKey, at: node.location, "sequence '\(name)' has no `responses`")
        }
        guard !responses.isEmpty else { return nil }
        var sequence = SequenceCase(name: name, location: node.location, responses: responses, expect: SequenceExpectation())
        if let value = fields["method"], let method = reader.text(value, at: fields.path("method"), what: "an HTTP method") {
            sequence.method = HTTPMethod(rawValue: method)
        }
        if let value = fields["idempotent"], let marked = reader.bool(value, at: fields.path("idempotent")) { sequence.markedIdempotent = marked }
        if let value = fields["endpoint"] { sequence.endpoint = reader.text(value, at: fields.path("endpoint"), what: "an endpoint name") }
        if let value = fields["latency"], let latency = reader.duration(value, at: fields.path("latency")) { sequence.latency = latency }
        if let value = fields["seed"], let seed = reader.integer(value, at: fields.path("seed"), in: 0...Int.max) { sequence.seed = UInt64(seed) }
        guard let expectNode = fields["expect"] else {
            reader.report(.missingKey, at: node.location, "sequence '\(name)' has no `expect`; a sequence without expectations cannot fail")
            return nil
        }
        guard let expectFields = reader.fields(
            expectNode, at: fields.path("expect"), allowed: Self.sequenceExpectationKeys, what: "a sequence expectation mapping")
        else { return nil }
        var expect = SequenceExpectation()
        if let value = expectFields["result"] {
            expect.result = reader.choice(value, at: expectFields.path("result"), among: [Rule.Action.success, .stop])
        }
        if let value = expectFields["error"] { expect.error = reader.text(value, at: expectFields.path("error"), what: "an error kind") }
        if let value = expectFields["reason"] { expect.reason = reader.choice(value, at: expectFields.path("reason"), of: StopReason.self) }
        if let value = expectFields["attempts"] { expect.attempts = reader.integer(value, at: expectFields.path("attempts"), in: 1...1000) }
        if let value = expectFields["max_elapsed"] { expect.maxElapsed = reader.duration(value, at: expectFields.path("max_elapsed")) }
        if expect.result == nil && expect.error == nil && expect.reason == nil && expect.attempts == nil && expect.maxElapsed == nil {
            reader.report(
                .missingKey, at: expectNode.location,
                "the expectation checks nothing; give at least one of result, error, reason, attempts, max_elapsed")
            return nil
        }
        sequence.expect = expect
        return sequence
    }
}
