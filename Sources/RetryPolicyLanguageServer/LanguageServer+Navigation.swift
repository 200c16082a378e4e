import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

/// Hover, completion, definitions and symbols.
extension LanguageServer {
    func position(_ params: LSPValue) -> LSPPosition? { LSPPosition(params["position"]) }

    func context(_ document: OpenDocument, at position: LSPPosition) -> YAMLContext {
        YAMLContext(text: document.text, line: position.line, column: document.text.scalarColumn(of: position) - 1)
    }

    func isStack(_ document: OpenDocument) -> Bool {
        document.text.lines.contains { $0.hasPrefix("stack:") }
    }

    // MARK: Hover

    func hover(_ params: LSPValue) -> LSPValue {
        guard let document = document(params), let position = position(params), document.kind == .policy else { return .null }
        let context = context(document, at: position)
        let schema = PolicySchema.shared
        var parts: [String] = []
        if let key = context.key, !context.inValue {
            let path = context.path + [key]
            if let description = schema.description(at: path, isStack: isStack(document)) {
                parts.append("**\(path.filter { $0 != "[]" }.joined(separator: "."))**\n\n\(description)")
                let values = schema.values(at: path, isStack: isStack(document))
                if !values.isEmpty { parts.append("One of: " + values.map { "`\($0)`" }.joined(separator: ", ")) }
            }
        } else if context.inValue {
            let value = context.value
            if case .success(let duration) = DurationText.parse(value) {
                parts.append("**\(value)** = \(DurationText.format(duration)) (\(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000) ms)")
            }
            if context.key == "error" || context.path.last == "errors", let policy = document.result.policy {
                let kind = SDKError.Kind(rawValue: value)
                let declared = policy.declaredErrors.contains(kind)
                parts.append("**error kind `\(value)`**: " + (declared ? "declared under `errors`" : "a standard error kind")
                    + ". " + (schema.description(at: ["rules", "[]", "error"], isStack: false) ?? ""))
                let platforms = Set(PlatformNames.standard.platforms + policy.errorNames.platforms).sorted()
                let names = platforms.compactMap { platform in
                    policy.platformName(of: kind, on: platform).map { "- \(platform): `\($0)`" }
                }
                if !names.isEmpty { parts.append("Its name on each platform:\n\n" + names.joined(separator: "\n")) }
            }
        }
        if let rule = ruleHover(document, line: position.line) { parts.append(rule) }
        guard !parts.isEmpty else { return .null }
        return ["contents": ["kind": "markdown", "value": .string(parts.joined(separator: "\n\n---\n\n"))]]
    }

    /// The decision-table rows the rule on `line` (0-based) wins, with the
    /// decision and delays each gets (the rows of `retry-policy table`).
    func ruleHover(_ document: OpenDocument, line: Int) -> String? {
        guard let policy = document.result.policy, let path = document.path else { return nil }
        let rules = policy.rules.compactMap { $0.location }.filter { $0.file == path }.map(\.line).sorted()
        guard let start = rules.last(where: { $0 <= line + 1 }) else { return nil }
        let next = rules.first(where: { $0 > start }) ?? Int.max
        guard line + 1 < next, line + 1 >= start, YAMLContext(text: document.text, line: line, column: 0).path.first == "rules"
        else { return nil }
        let rows = ErrorTable(policy: policy).rows.filter { row in row.rules.contains { $0.file == path && $0.line == start } }
        if rows.isEmpty { return "**This rule wins no row of the decision table**: earlier rules match everything it matches." }
        return "**Rows of the decision table this rule wins** (`retry-policy table`):\n\n"
            + rows.map { "- \($0.inputText): \($0.decision.description)" }.joined(separator: "\n")
    }

    // MARK: Completion

    func completion(_ params: LSPValue) -> LSPValue {
        guard let document = document(params), let position = position(params) else { return .array([]) }
        let context = context(document, at: position)
        var items: [LSPValue] = []
        func add(_ label: String, kind: Int, detail: String? = nil, insert: String? = nil) {
            var item: [String: LSPValue] = ["label": .string(label), "kind": .int(kind)]
            if let detail { item["documentation"] = .string(detail) }
            if let insert { item["insertText"] = .string(insert) }
            items.append(.object(item))
        }
        switch document.kind {
        case .testsFile:
            if context.inValue, context.key == "policy" { for file in yamlFiles(near: document) { add(file, kind: 17) } }
        case .policy:
            let stack = isStack(document)
            if context.inValue, let key = context.key {
                let path = context.path + [key]
                if ["extends", "parity"].contains(key) || (key == "policy" && context.path.first == "stack") {
                    for file in yamlFiles(near: document) { add(file, kind: 17) }
                } else if key == "error" || context.path.last == "errors" {
                    for kind in errorKinds(document) { add(kind, kind: 20) }
                } else if key == "condition" {
                    for condition in document.result.policy?.conditions ?? [] { add(condition.rawValue, kind: 20) }
                } else {
                    for value in PolicySchema.shared.values(at: path, isStack: stack) { add(value, kind: 12) }
                }
            } else if context.path.last == "parity" {
                for file in yamlFiles(near: document) { add(file, kind: 17) }
            } else {
                for (key, description) in PolicySchema.shared.keys(at: context.path, isStack: stack) {
                    add(key, kind: 10, detail: description, insert: key + ": ")
                }
            }
        default:
            break
        }
        return ["isIncomplete": false, "items": .array(items)]
    }

    /// The standard error kinds and those the policy declares.
    func errorKinds(_ document: OpenDocument) -> [String] {
        var kinds = PolicySchema.shared.values(at: ["rules", "[]", "error"], isStack: false)
        for declared in document.result.policy?.declaredErrors ?? [] where !kinds.contains(declared.rawValue) {
            kinds.append(declared.rawValue)
        }
        return kinds
    }

    /// The YAML files beside the document (and below, one level), named
    /// relative to it, read through the root.
    func yamlFiles(near document: OpenDocument) -> [String] {
        guard let root, let path = document.path, let slash = path.lastIndex(of: "/") else { return [] }
        let directory = String(path[..<slash])
        guard let found = try? root.files(under: [directory.isEmpty ? "/" : directory], accept: { PolicyFileName.isYAML($0) })
        else { return [] }
        let prefix = directory + "/"
        var names: [String] = []
        for file in found where file.path != path {
            let name = file.path.hasPrefix(prefix) ? String(file.path.dropFirst(prefix.count)) : file.path
            if name.split(separator: "/").count <= 2 { names.append(name) }
        }
        return Array(names.sorted().prefix(200))
    }

    // MARK: Definition

    func definition(_ params: LSPValue) -> LSPValue {
        guard let document = document(params), let position = position(params), let path = document.path else { return .null }
        let context = context(document, at: position)
        let value = context.inValue ? context.value : (context.path.last == "parity" ? context.value : "")
        let referenceKeys = ["extends", "parity", "policy"]
        if !value.isEmpty, referenceKeys.contains(context.key ?? "") || context.path.last == "parity" {
            guard let root, case .success(let target) = root.locate(LintRun.resolve(value, relativeTo: path)), target.kind == .regular
            else { return .null }
            return location(uri: Self.uri(ofPath: target.canonicalPath), line: 0, character: 0)
        }
        // A declared condition or error kind named in a rule: where it is declared.
        guard let word = document.text.word(at: position)?.text else { return .null }
        if context.key == "condition" || context.key == "error" {
            for (index, line) in document.text.lines.enumerated() {
                let shape = YAMLContext(text: document.text, line: index, column: 0)
                // `conditions: [a, b]`, or one item per line; `errors:` maps kinds.
                let inConditions = shape.path.last == "conditions" || (shape.path.isEmpty && shape.key == "conditions")
                let inErrors = shape.path.last == "errors" && shape.key == word
                guard context.key == "condition" ? inConditions : inErrors else { continue }
                let scalars = Array(line.unicodeScalars)
                let wanted = Array(word.unicodeScalars)
                var column = 0
                while column + wanted.count <= scalars.count {
                    let before = column == 0 ? " " : scalars[column - 1]
                    let after = column + wanted.count < scalars.count ? scalars[column + wanted.count] : " "
                    if Array(scalars[column..<(column + wanted.count)]) == wanted, " [,-".unicodeScalars.contains(before),
                        " ],:#".unicodeScalars.contains(after) {
                        return location(
                            uri: document.uri, line: index, character: document.text.position(line: index + 1, column: column + 1).character)
                    }
                    column += 1
                }
            }
        }
        return .null
    }

    func location(uri: String, line: Int, character: Int) -> LSPValue {
        let point = LSPPosition(line: line, character: character)
        return ["uri": .string(uri), "range": LSPRange(start: point, end: point).json]
    }

    // MARK: Symbols

    /// The rules (by what they match) and the endpoints of a policy.
    func documentSymbols(_ params: LSPValue) -> LSPValue {
        guard let document = document(params), document.kind == .policy else { return .array([]) }
        var symbols: [LSPValue] = []
        for (index, line) in document.text.lines.enumerated() {
            let context = YAMLContext(text: document.text, line: index, column: 0)
            let shape = YAMLContext.Line(line)
            let name: String?
            let kind: Int
            if context.path == ["rules", "[]"], shape.dash != nil {
                name = "rule: " + String(line.drop { $0 == " " || $0 == "-" })
                kind = 12
            } else if context.path == ["endpoints"], let key = shape.key, shape.dash == nil {
                name = "endpoint: " + key
                kind = 8
            } else if context.path.isEmpty, let key = shape.key, shape.dash == nil, ["default", "stack"].contains(key) {
                name = key
                kind = 12
            } else {
                continue
            }
            guard let name else { continue }
            let range = LSPRange(start: LSPPosition(line: index, character: 0), end: LSPPosition(line: index, character: line.utf16.count))
            symbols.append(["name": .string(name), "kind": .int(kind), "range": range.json, "selectionRange": range.json])
        }
        return .array(symbols)
    }
}
