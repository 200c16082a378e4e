import RetryPolicyCore

extension PolicyComparison {
    /// The comparison as `retry-policy diff` prints it: what was compared
    /// and, per group of inputs, what each side decides (`first` and
    /// `second` name the sides). The paths, and the error kinds and
    /// methods a policy file may name, are made safe to print.
    public func text(first: String, second: String) -> String {
        let first = DisplayText.escaped(first)
        let second = DisplayText.escaped(second)
        let grpcScope = comparedGRPC ? ", \(GRPCStatusCode.allCases.count) gRPC statuses" : ""
        let scope = "statuses 100-599\(grpcScope) and \(TransportFailure.allCases.count) transport classes x attempts \(IntegerRanges.text(attempts)) x \(plural(methods.count, "method"))"
        if isIdentical {
            return "\(first) and \(second) decide identically on all \(comparedInputs) inputs (\(scope))\n"
        }
        var output = "\(first) and \(second) differ on \(differingInputs) of \(comparedInputs) inputs (\(scope)):\n"
        for difference in differences {
            output += "  \(DisplayText.escaped(difference.inputText)):\n"
            output += "    \(first): \(DisplayText.escaped(difference.left.description))\n"
            output += "    \(second): \(DisplayText.escaped(difference.right.description))\n"
        }
        return output
    }

    /// The comparison for tools; each side's decision in the form of
    /// `DecisionJSON`, without the rule.
    public var json: JSONValue {
        .object([
            ("identical", .bool(isIdentical)),
            ("compared_inputs", .int(comparedInputs)),
            ("differing_inputs", .int(differingInputs)),
            ("differences", .array(differences.map { difference in
                .object([
                    ("statuses", .array(difference.statuses.map { .array([.int($0.lowerBound), .int($0.upperBound)]) })),
                    ("transports", .array(difference.transports.map { .string($0.rawValue) })),
                ] + (comparedGRPC ? [("grpc", .array(difference.grpc.map { .string($0.name) }))] : []) + [
                    ("attempts", .array(difference.attempts.map { .array([.int($0.lowerBound), .int($0.upperBound)]) })),
                    ("methods", difference.methods.map { .array($0.map { .string($0.rawValue) }) } ?? .null),
                    ("first", DecisionJSON.value(difference.left)),
                    ("second", DecisionJSON.value(difference.right)),
                ])
            })),
        ])
    }
}
