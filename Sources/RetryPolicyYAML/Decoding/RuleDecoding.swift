import RetryPolicyCore

/// Decoding of the parts of a rule: status patterns, transport classes,
/// methods and error kinds.
extension FieldReader {
    /// `429`, `"5xx"`, `"500-504"`, or a list of those.
    mutating func statusPatterns(_ node: YAMLNode, at keyPath: @autoclosure () -> String) -> [StatusPattern]? {
        guard let items = oneOrMany(node, at: keyPath(), what: "a status pattern") else { return nil }
        var patterns: [StatusPattern] = []
        var ok = true
        for item in items {
            if let pattern = statusPattern(item, at: keyPath()) { patterns.append(pattern) } else { ok = false }
        }
        return ok ? patterns : nil
    }

    private mutating func statusPattern(_ node: YAMLNode, at keyPath: @autoclosure () -> String) -> StatusPattern? {
        let what = "a status code from 100 to 599 (429), a class (\"5xx\") or a range (\"500-504\")"
        guard case .scalar(let scalar) = node else {
            expected(what, for: keyPath(), found: node, rule: .invalidStatus)
            return nil
        }
        let valid = StatusPattern.validCodes
        switch scalar.resolved {
        case .integer(let code):
            if valid.contains(code) { return .code(code) }
            expected("a status code from 100 to 599", for: keyPath(), found: node, rule: .invalidStatus)
        case .oversizedInteger:
            expected("a status code from 100 to 599", for: keyPath(), found: node, rule: .invalidStatus)
        case .string(let text):
            let bytes = Array(text.utf8)
            func digits(_ slice: ArraySlice<UInt8>) -> Int? {
                guard slice.count == 3, slice.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
                return slice.reduce(0) { $0 * 10 + Int($1 - 48) }
            }
            if bytes.count == 3, (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(bytes[0]),
                bytes[1] == UInt8(ascii: "x"), bytes[2] == UInt8(ascii: "x")
            {
                return StatusPattern.statusClass(Int(bytes[0] - 48))
            }
            if bytes.count == 7, bytes[3] == UInt8(ascii: "-"), let low = digits(bytes[0..<3]), let high = digits(bytes[4..<7]) {
                if !valid.contains(low) || !valid.contains(high) {
                    expected("a range within 100-599", for: keyPath(), found: node, rule: .invalidStatus)
                } else if low > high {
                    expected("a range whose first code is not above its last", for: keyPath(), found: node, rule: .invalidStatus,
                             suggestion: "write \"\(high)-\(low)\"")
                } else {
                    return .range(low...high)
                }
                return nil
            }
            if scalar.isQuoted, case .integer(let code)? = CoreSchema.integer(text) {
                expected(what, for: keyPath(), found: node, rule: .invalidStatus, suggestion: "write \(code) without quotes")
            } else {
                expected(what, for: keyPath(), found: node, rule: .invalidStatus)
            }
        default:
            expected(what, for: keyPath(), found: node, rule: .invalidStatus)
        }
        return nil
    }

    /// A transport class or a list of them.
    mutating func transports(_ node: YAMLNode, at keyPath: @autoclosure () -> String) -> Set<TransportFailure>? {
        guard let items = oneOrMany(node, at: keyPath(), what: "a transport class") else { return nil }
        var result: Set<TransportFailure> = []
        var ok = true
        for item in items {
            guard case .scalar(let scalar) = item, case .string(let text) = scalar.resolved,
                let transport = TransportFailure(rawValue: text)
            else {
                let allowed = TransportFailure.allCases.map(\.rawValue)
                var suggestion: String?
                if case .scalar(let scalar) = item { suggestion = Suggestion.didYouMean(scalar.value, among: allowed) }
                expected("a transport class (\(Self.alternatives(allowed)))", for: keyPath(), found: item,
                         rule: .unknownTransport, suggestion: suggestion)
                ok = false
                continue
            }
            result.insert(transport)
        }
        return ok ? result : nil
    }

    /// A gRPC status name or a list of them, written as gRPC spells them
    /// (`UNAVAILABLE`, `RESOURCE_EXHAUSTED`): one spelling per code keeps
    /// files greppable and diffs quiet. Another case or a code's number is
    /// refused with the name to write.
    mutating func grpcStatuses(_ node: YAMLNode, at keyPath: @autoclosure () -> String) -> Set<GRPCStatusCode>? {
        guard let items = oneOrMany(node, at: keyPath(), what: "a gRPC status name") else { return nil }
        var result: Set<GRPCStatusCode> = []
        var ok = true
        for item in items {
            if case .scalar(let scalar) = item, case .string(let text) = scalar.resolved,
                let code = GRPCStatusCode.allCases.first(where: { $0.name == text })
            {
                result.insert(code)
                continue
            }
            var suggestion: String?
            if case .scalar(let scalar) = item {
                if let code = GRPCStatusCode(parsing: scalar.value) {
                    suggestion = "write \(code.name)"
                } else {
                    suggestion = Suggestion.didYouMean(scalar.value, among: GRPCStatusCode.allCases.map(\.name))
                }
            }
            expected("a gRPC status name (UNAVAILABLE, RESOURCE_EXHAUSTED, ...; see grpc/grpc doc/statuscodes.md)",
                     for: keyPath(), found: item, rule: .unknownGRPCStatus,
                     suggestion: suggestion ?? "one of \(Self.alternatives(GRPCStatusCode.allCases.map(\.name)))")
            ok = false
        }
        return ok ? result : nil
    }

    /// A list of standard HTTP methods, written in upper case.
    /// - Parameter nonEmpty: a rule's `methods` must name at least one (an
    ///   empty list would make a rule that matches nothing); the idempotency
    ///   list may be empty (no method is retried without an idempotency key).
    mutating func methods(_ node: YAMLNode, at keyPath: @autoclosure () -> String, nonEmpty: Bool = false) -> Set<HTTPMethod>? {
        guard let items = list(node, at: keyPath(), what: "a list of HTTP methods", nonEmpty: nonEmpty) else { return nil }
        var result: Set<HTTPMethod> = []
        var ok = true
        for item in items {
            guard case .scalar(let scalar) = item, case .string(let text) = scalar.resolved,
                let method = HTTPMethod.standard.first(where: { $0.rawValue == text })
            else {
                let allowed = HTTPMethod.standard.map(\.rawValue)
                var suggestion: String?
                if case .scalar(let scalar) = item { suggestion = Suggestion.didYouMean(scalar.value, among: allowed) }
                expected("an HTTP method (\(Self.alternatives(allowed)))", for: keyPath(), found: item,
                         rule: .unknownMethod, suggestion: suggestion)
                ok = false
                continue
            }
            result.insert(method)
        }
        return ok ? result : nil
    }

    /// A condition or a list of them, each declared under `conditions`.
    mutating func conditions(
        _ node: YAMLNode, at keyPath: @autoclosure () -> String, declared: Set<AttemptCondition>
    ) -> Set<AttemptCondition>? {
        guard let items = oneOrMany(node, at: keyPath(), what: "a condition name") else { return nil }
        var result: Set<AttemptCondition> = []
        var ok = true
        for item in items {
            guard let text = string(item, at: keyPath(), what: "a condition name") else {
                ok = false
                continue
            }
            let condition = AttemptCondition(rawValue: text)
            guard declared.contains(condition) else {
                report(
                    .unknownCondition, at: item.location,
                    "\(Self.prefix(keyPath()))expected a condition declared under 'conditions', found '\(YAMLScalar.abbreviated(text))'",
                    suggestion: Suggestion.didYouMean(text, among: declared.map(\.rawValue).sorted())
                        ?? "declare it: conditions: [\(YAMLScalar.abbreviated(text))]")
                ok = false
                continue
            }
            result.insert(condition)
        }
        return ok ? result : nil
    }

    /// An error kind that is standard or declared in the file's `errors`.
    mutating func errorKind(_ node: YAMLNode, at keyPath: @autoclosure () -> String, known: Set<SDKError.Kind>) -> SDKError.Kind? {
        guard let text = string(node, at: keyPath(), what: "an error kind") else { return nil }
        let kind = SDKError.Kind(rawValue: text)
        if known.contains(kind) { return kind }
        report(
            .unknownErrorKind, at: node.location,
            "\(Self.prefix(keyPath()))expected a standard error kind or one declared under 'errors', found '\(YAMLScalar.abbreviated(text))'",
            suggestion: Suggestion.didYouMean(text, among: known.map(\.rawValue).sorted())
                ?? "declare it under 'errors' or use one of \(SDKError.Kind.standard.map(\.rawValue).joined(separator: ", "))")
        return nil
    }
}
