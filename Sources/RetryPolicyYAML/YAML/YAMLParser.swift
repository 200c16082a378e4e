import CYAML
import RetryPolicyCore

/// Parses YAML into a located ``YAMLNode`` tree through libyaml's event
/// API.
///
/// Events (not libyaml's document API) are used so that nothing is ever
/// expanded: an alias is refused the moment it is seen, depth and node
/// count are checked as the tree grows, and a hostile file costs at most one
/// pass over at most ``YAMLLimits/maxBytes`` bytes.
public enum YAMLParser {
    /// Parses one YAML document. Returns `nil` for a file with no document
    /// (empty or comments only).
    public static func parse(_ text: String, path: String, limits: YAMLLimits = .default) throws(PolicyLoadError) -> YAMLNode? {
        try parse(bytes: Array(text.utf8), path: path, limits: limits)
    }

    /// Parses raw file bytes, checking that they are UTF-8 first. A leading
    /// UTF-8 byte order mark (as Windows editors write) is skipped; lines
    /// and columns are counted after it, as an editor shows them.
    public static func parse(bytes: [UInt8], path: String, limits: YAMLLimits = .default) throws(PolicyLoadError) -> YAMLNode? {
        try parse(bytes: bytes, path: path, limits: limits, multipleDocuments: false).first
    }

    /// Parses every document of a YAML stream (`---` between documents, as
    /// `kubectl apply -f` reads a file). Empty documents (a trailing
    /// `---`, say) are left out; the limits apply to the stream as a whole.
    package static func parseDocuments(bytes: [UInt8], path: String, limits: YAMLLimits = .default) throws(PolicyLoadError) -> [YAMLNode] {
        try parse(bytes: bytes, path: path, limits: limits, multipleDocuments: true)
    }

    private static func parse(bytes: [UInt8], path: String, limits: YAMLLimits, multipleDocuments: Bool) throws(PolicyLoadError) -> [YAMLNode] {
        let result: Result<[YAMLNode], PolicyLoadError> = bytes.withUnsafeBufferPointer { whole in
            let skip = whole.count >= 3 && whole[0] == 0xEF && whole[1] == 0xBB && whole[2] == 0xBF ? 3 : 0
            let buffer = UnsafeBufferPointer(rebasing: whole[skip...])
            if let problem = TextValidation.check(buffer, path: path, limits: limits) {
                return .failure(PolicyLoadError(problem))
            }
            var builder = TreeBuilder(path: path, limits: limits, multipleDocuments: multipleDocuments)
            return builder.run(buffer)
        }
        return try result.get()
    }
}

/// Turns the event stream into a tree, collecting every non-fatal problem
/// (anchors, tags, duplicate keys) so that one run reports them all.
private struct TreeBuilder {
    /// An open mapping or sequence. A struct mutated in place through the
    /// stack's subscript, so appending a child never copies its siblings
    /// (an enum payload would be copied on every append: quadratic time on
    /// a long list).
    struct Frame {
        enum Kind { case mapping, sequence }
        let kind: Kind
        let location: SourceLocation
        var items: [YAMLNode] = []
        var entries: [(key: YAMLScalar, value: YAMLNode)] = []
        /// The keys of ``entries``, in the same order, scanned for
        /// duplicates without copying the entries.
        var keys: [String] = []
        var pendingKey: YAMLScalar?
        var keyIsBroken = false
        /// The keys of ``entries`` by name, built only once a mapping grows
        /// past ``indexedFrom`` entries: a scan of a few keys costs less
        /// than an index, and the index keeps a hostile mapping of
        /// thousands of keys linear.
        var seen: [String: SourceLocation] = [:]
        static let indexedFrom = 16
        static let typicalCount = 8

        /// Where `key` was first written in this mapping, if it was.
        mutating func firstLocation(of key: String) -> SourceLocation? {
            if entries.count < Self.indexedFrom {
                return keys.firstIndex(of: key).map { entries[$0].key.location }
            }
            if seen.isEmpty {
                for entry in entries { seen[entry.key.value] = entry.key.location }
            }
            return seen[key]
        }

        /// Records the key of an entry about to be appended.
        mutating func remember(_ key: YAMLScalar) {
            if entries.count < Self.indexedFrom {
                // Room for a typical mapping at once, instead of growing
                // through 1, 2, 4 and 8 entries.
                if keys.isEmpty {
                    keys.reserveCapacity(Self.typicalCount)
                    entries.reserveCapacity(Self.typicalCount)
                }
                keys.append(key.value)
            }
            if !seen.isEmpty { seen[key.value] = key.location }
        }

        init(kind: Kind, location: SourceLocation) {
            self.kind = kind
            self.location = location
        }
    }

    let path: String
    let limits: YAMLLimits
    var stack: [Frame] = []
    /// The finished documents' roots.
    var documents: [YAMLNode] = []
    /// Whether a stream of several documents is read (otherwise a second
    /// document is an error).
    let multipleDocuments: Bool
    var diagnostics: [Diagnostic] = []
    var nodeCount = 0
    var documentCount = 0
    /// Anchors and aliases seen; only the first few are reported so that an
    /// alias bomb gives a short answer.
    var aliasCount = 0
    var firstUnreportedAlias: SourceLocation?
    static let reportedAliases = 3
    /// Problems counted but not described past ``FieldReader/limit``.
    var suppressed = 0
    var firstSuppressed: Diagnostic?

    mutating func note(_ diagnostic: Diagnostic) {
        if diagnostics.count >= FieldReader.limit {
            if firstSuppressed == nil { firstSuppressed = diagnostic }
            suppressed += 1
        } else {
            diagnostics.append(diagnostic)
        }
    }

    init(path: String, limits: YAMLLimits, multipleDocuments: Bool) {
        self.path = path
        self.limits = limits
        self.multipleDocuments = multipleDocuments
    }

    mutating func run(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<[YAMLNode], PolicyLoadError> {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) != 0 else {
            return .failure(PolicyLoadError(Diagnostic(.yamlSyntax, at: location(line: 1, column: 1), "libyaml could not start (out of memory)")))
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        if let base = buffer.baseAddress {
            yaml_parser_set_input_string(parser, base, buffer.count)
        } else {
            var empty: UInt8 = 0
            yaml_parser_set_input_string(parser, &empty, 0)
        }

        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) != 0 else {
                return .failure(failure(adding: syntaxError(parser.pointee, buffer)))
            }
            let type = event.type
            let fatal = handle(&event)
            yaml_event_delete(&event)
            if let fatal { return .failure(failure(adding: fatal)) }
            if type == YAML_STREAM_END_EVENT { break }
        }
        if let firstUnreportedAlias {
            note(Diagnostic(
                .aliasOrAnchor, at: firstUnreportedAlias,
                "expected no anchors or aliases, found \(aliasCount - Self.reportedAliases) more from here on (not listed)"))
        }
        if !diagnostics.isEmpty { return .failure(failure(adding: nil)) }
        return .success(documents)
    }

    /// The collected problems (plus a fatal one), with the count of those
    /// not described.
    private func failure(adding fatal: Diagnostic?) -> PolicyLoadError {
        var error = PolicyLoadError(diagnostics: diagnostics + (fatal.map { [$0] } ?? []))
        error.unlisted = suppressed
        error.firstUnlisted = firstSuppressed
        return error
    }

    // MARK: Events

    /// Handles one event; returns a diagnostic when parsing must stop.
    private mutating func handle(_ event: inout yaml_event_t) -> Diagnostic? {
        let start = location(event.start_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documentCount += 1
            if documentCount > 1 && !multipleDocuments {
                return Diagnostic(.documentCount, at: start, "expected one YAML document per file, found a second document")
            }
        case YAML_ALIAS_EVENT:
            let name = string(event.data.alias.anchor) ?? ""
            if shouldReportAlias(at: start) { note(Diagnostic(
                .aliasOrAnchor, at: start,
                "expected a value, found the alias '*\(YAMLScalar.abbreviated(name))'; anchors and aliases are not allowed",
                suggestion: "share settings between files with 'extends'")) }
            return add(.scalar(YAMLScalar(value: "", location: start)))
        case YAML_SCALAR_EVENT:
            let scalarData = event.data.scalar
            checkAnchor(scalarData.anchor, at: start)
            let tag = checkTag(scalarData.tag, at: start, forScalar: true)
            var text = ""
            if let value = scalarData.value, scalarData.length > 0 {
                text = String(decoding: UnsafeBufferPointer(start: value, count: scalarData.length), as: UTF8.self)
            }
            // The file itself has no NUL byte (TextValidation refuses one),
            // so only a double-quoted escape (\0, \x00, \u0000) can make one.
            if scalarData.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE && text.utf8.contains(0) {
                note(Diagnostic(.encoding, at: start, "expected text, found a NUL character (\\0) in a string"))
            }
            let style: YAMLScalar.Style =
                switch scalarData.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
            return add(.scalar(YAMLScalar(value: text, location: start, style: style, tag: tag)))
        case YAML_SEQUENCE_START_EVENT:
            checkAnchor(event.data.sequence_start.anchor, at: start)
            let tag = checkTag(event.data.sequence_start.tag, at: start, forScalar: false)
            if let tag, tag != .seq { note(mismatchedTag(tag, at: start, on: "a list")) }
            if let problem = open(at: start) { return problem }
            stack.append(Frame(kind: .sequence, location: start))
        case YAML_MAPPING_START_EVENT:
            checkAnchor(event.data.mapping_start.anchor, at: start)
            let tag = checkTag(event.data.mapping_start.tag, at: start, forScalar: false)
            if let tag, tag != .map { note(mismatchedTag(tag, at: start, on: "a mapping")) }
            if let problem = open(at: start) { return problem }
            stack.append(Frame(kind: .mapping, location: start))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return nil }
            switch frame.kind {
            case .sequence: return add(.sequence(frame.items, frame.location), counted: false)
            case .mapping: return add(.mapping(frame.entries, frame.location), counted: false)
            }
        default:
            break
        }
        return nil
    }

    /// Checks depth and node count before a collection opens.
    private mutating func open(at start: SourceLocation) -> Diagnostic? {
        if stack.count + 1 > limits.maxDepth {
            return Diagnostic(.limitExceeded, at: start, "expected nesting at most \(limits.maxDepth) levels deep, found deeper nesting")
        }
        return countNode(at: start)
    }

    private mutating func countNode(at start: SourceLocation) -> Diagnostic? {
        nodeCount += 1
        if nodeCount > limits.maxNodes {
            return Diagnostic(.limitExceeded, at: start, "expected at most \(limits.maxNodes) YAML nodes, found more")
        }
        return nil
    }

    /// Attaches a finished node to its parent (or makes it the root).
    private mutating func add(_ node: YAMLNode, counted: Bool = true) -> Diagnostic? {
        if counted, let problem = countNode(at: node.location) { return problem }
        guard !stack.isEmpty else {
            // In a stream, a document holding only an empty plain scalar
            // (a trailing `---`) is no document.
            if multipleDocuments, case .scalar(let scalar) = node, scalar.value.isEmpty, scalar.style == .plain, scalar.tag == nil {
                return nil
            }
            documents.append(node)
            return nil
        }
        let top = stack.count - 1
        switch stack[top].kind {
        case .sequence:
            stack[top].items.append(node)
        case .mapping:
            if let pendingKey = stack[top].pendingKey {
                if !stack[top].keyIsBroken {
                    stack[top].remember(pendingKey)
                    stack[top].entries.append((pendingKey, node))
                }
                stack[top].pendingKey = nil
                stack[top].keyIsBroken = false
            } else if case .scalar(let key) = node {
                if let first = stack[top].firstLocation(of: key.value) {
                    stack[top].keyIsBroken = true
                    note(Diagnostic(
                        .duplicateKey, at: key.location,
                        "expected each key once in a mapping, found '\(YAMLScalar.abbreviated(key.value))' again (first at line \(first.line), column \(first.column))",
                        suggestion: "remove one of the two entries"))
                }
                stack[top].pendingKey = key
            } else {
                note(Diagnostic(.wrongType, at: node.location, "expected a plain key, found \(node.kindDescription) used as a key"))
                stack[top].pendingKey = YAMLScalar(value: "", location: node.location)
                stack[top].keyIsBroken = true
            }
        }
        return nil
    }

    // MARK: Anchors and tags

    private mutating func checkAnchor(_ anchor: UnsafeMutablePointer<yaml_char_t>?, at start: SourceLocation) {
        guard let name = string(anchor), shouldReportAlias(at: start) else { return }
        note(Diagnostic(
            .aliasOrAnchor, at: start,
            "expected a plain value, found the anchor '&\(YAMLScalar.abbreviated(name))'; anchors and aliases are not allowed",
            suggestion: "share settings between files with 'extends'"))
    }

    private mutating func shouldReportAlias(at start: SourceLocation) -> Bool {
        aliasCount += 1
        if aliasCount > Self.reportedAliases && firstUnreportedAlias == nil { firstUnreportedAlias = start }
        return aliasCount <= Self.reportedAliases
    }

    private mutating func checkTag(_ tag: UnsafeMutablePointer<yaml_char_t>?, at start: SourceLocation, forScalar: Bool) -> CoreTag? {
        guard let text = string(tag) else { return nil }
        guard let core = CoreTag(rawValue: text) else {
            let shown = text.hasPrefix("tag:yaml.org,2002:") ? "!!" + text.dropFirst("tag:yaml.org,2002:".count) : text
            note(Diagnostic(
                .unsupportedTag, at: start,
                "expected no tag or a core schema tag (!!str, !!int, !!bool, !!null, !!float, !!map, !!seq), found '\(YAMLScalar.abbreviated(shown))'"))
            return nil
        }
        if forScalar && !core.isScalarTag {
            note(mismatchedTag(core, at: start, on: "a scalar"))
            return nil
        }
        return core
    }

    private func mismatchedTag(_ tag: CoreTag, at start: SourceLocation, on kind: String) -> Diagnostic {
        Diagnostic(.unsupportedTag, at: start, "expected a tag that fits \(kind), found \(tag.shorthand)")
    }

    // MARK: Helpers

    private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    private func location(_ mark: yaml_mark_t) -> SourceLocation {
        SourceLocation(file: path, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    private func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: path, line: line, column: column)
    }

    /// libyaml's error as a diagnostic at the mistake (see `YAMLSyntaxHint`).
    private func syntaxError(_ parser: yaml_parser_t, _ buffer: UnsafeBufferPointer<UInt8>) -> Diagnostic {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        if parser.error == YAML_READER_ERROR {
            let at = location(offset: parser.problem_offset, in: buffer)
            if problem == "control characters are not allowed", parser.problem_value >= 0 {
                let hex = String(parser.problem_value, radix: 16, uppercase: true)
                return Diagnostic(
                    .yamlSyntax, at: at,
                    "expected printable text, found the control character U+\(String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex)",
                    suggestion: "delete it, or write it as an escape in a double-quoted string")
            }
            return Diagnostic(.yamlSyntax, at: at, "expected valid YAML, found a syntax error: \(problem)")
        }
        let context = parser.context.map { String(cString: $0) }
        let hint = YAMLSyntaxHint(
            problem: problem, context: context,
            problemMark: mark(parser.problem_mark),
            contextMark: context == nil ? nil : mark(parser.context_mark),
            source: SyntaxErrorSource(buffer), path: path)
        return hint.diagnostic()
    }

    private func mark(_ mark: yaml_mark_t) -> YAMLSyntaxHint.Mark {
        YAMLSyntaxHint.Mark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// Line and column of a byte offset (reader errors carry only that).
    private func location(offset: Int, in buffer: UnsafeBufferPointer<UInt8>) -> SourceLocation {
        var line = 1
        var column = 1
        for index in 0..<Swift.min(offset, buffer.count) {
            if buffer[index] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if buffer[index] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(file: path, line: line, column: column)
    }
}
