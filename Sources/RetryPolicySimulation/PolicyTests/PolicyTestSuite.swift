import RetryPolicyCore

/// The unit tests of one policy, read from `NAME.tests.yaml` next to it (the
/// format is in docs/cli.md). Policy authors state what the policy must do
/// for given inputs, the way `opa test` and `conftest verify` let them test
/// authorisation policies.
public struct PolicyTestSuite: Sendable {
    /// The test file.
    public var path: String
    /// The policy under test, as written in the file (relative to it).
    package var policyReference: String
    /// Where `policy:` is written; `nil` when the file names none and the
    /// policy beside it is meant.
    package var policyLocation: SourceLocation?
    public var cases: [DecisionCase]
    public var sequences: [SequenceCase]

    public init(
        path: String, policyReference: String, policyLocation: SourceLocation? = nil, cases: [DecisionCase],
        sequences: [SequenceCase]
    ) {
        self.path = path
        self.policyReference = policyReference
        self.policyLocation = policyLocation
        self.cases = cases
        self.sequences = sequences
    }
}

/// One input and the decision expected for it.
public struct DecisionCase: Sendable {
    public var name: String
    public var location: SourceLocation
    public var input: DecisionInput
    public var expect: DecisionExpectation

    public init(name: String, location: SourceLocation, input: DecisionInput, expect: DecisionExpectation) {
        self.name = name
        self.location = location
        self.input = input
        self.expect = expect
    }
}

/// What a decision must be; unset fields are not checked.
public struct DecisionExpectation: Sendable {
    public var action: Rule.Action?
    /// A kind (`status_429`) or a platform name (`SDKError.status_429`).
    public var error: String?
    public var reason: StopReason?
    package var delayMin: Duration?
    package var delayMax: Duration?
    /// The rule that must decide.
    public var rule: RuleReference?

    /// The line of the rule that must decide.
    package var ruleLine: Int? {
        get { rule?.line }
        set { rule = newValue.map { RuleReference(line: $0) } }
    }

    public init(action: Rule.Action? = nil, error: String? = nil, reason: StopReason? = nil,
                delayMin: Duration? = nil, delayMax: Duration? = nil, ruleLine: Int? = nil, rule: RuleReference? = nil) {
        self.action = action
        self.error = error
        self.reason = reason
        self.delayMin = delayMin
        self.delayMax = delayMax
        self.rule = rule ?? ruleLine.map { RuleReference(line: $0) }
    }
}

/// A whole request: scripted responses in order and the expected end.
public struct SequenceCase: Sendable {
    public var name: String
    public var location: SourceLocation
    public var responses: [ScriptedResponse]
    public var method: HTTPMethod
    package var markedIdempotent: Bool
    public var endpoint: String?
    public var latency: Duration
    public var seed: UInt64
    public var expect: SequenceExpectation

    public init(name: String, location: SourceLocation, responses: [ScriptedResponse], method: HTTPMethod = .get,
                markedIdempotent: Bool = false, endpoint: String? = nil, latency: Duration = .zero, seed: UInt64 = 1,
                expect: SequenceExpectation) {
        self.name = name
        self.location = location
        self.responses = responses
        self.method = method
        self.markedIdempotent = markedIdempotent
        self.endpoint = endpoint
        self.latency = latency
        self.seed = seed
        self.expect = expect
    }
}

/// How a sequence must end; unset fields are not checked.
public struct SequenceExpectation: Sendable {
    /// `success` or `stop`.
    public var result: Rule.Action?
    public var error: String?
    public var reason: StopReason?
    /// How many attempts were made.
    public var attempts: Int?
    /// The longest the request may take, first attempt to final outcome.
    package var maxElapsed: Duration?

    public init(result: Rule.Action? = nil, error: String? = nil, reason: StopReason? = nil,
                attempts: Int? = nil, maxElapsed: Duration? = nil) {
        self.result = result
        self.error = error
        self.reason = reason
        self.attempts = attempts
        self.maxElapsed = maxElapsed
    }
}
