/// The JSON form of a decision, shared by `decide`, `simulate`, `diff` and
/// the storm report: `{"action", "error", "reason", "delay_ms": {"min",
/// "max"}, "rule"}`.
package enum DecisionJSON {
    /// The outline with the rule that decided, as `FILE:LINE` (`null`
    /// when no rule did).
    package static func value(_ outline: DecisionOutline) -> JSONValue {
        .object(fields(outline.signature) + [("rule", .optional(outline.rule.map { "\($0.file):\($0.line)" }))])
    }

    /// What two decisions are compared by, without the rule.
    package static func value(_ signature: DecisionOutline.Signature) -> JSONValue {
        .object(fields(signature))
    }

    private static func fields(_ signature: DecisionOutline.Signature) -> [(String, JSONValue)] {
        [
            ("action", .string(signature.action.rawValue)),
            ("error", .optional(signature.error?.rawValue)),
            ("reason", .optional(signature.reason?.rawValue)),
            ("delay_ms", signature.delay.map { .object([("min", .milliseconds($0.lowerBound)), ("max", .milliseconds($0.upperBound))]) } ?? .null),
        ]
    }
}
