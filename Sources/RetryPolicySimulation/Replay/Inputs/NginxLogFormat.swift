/// An nginx `log_format`: literal text and `$variables`, matched against
/// access-log lines the way nginx wrote them.
///
/// A variable's value runs to the next literal text of the format, except
/// the upstream lists (`$upstream_status`, `$upstream_response_time`,
/// `$upstream_addr` and the other `$upstream_*` timings), whose values
/// hold one entry per upstream attempt separated by `, ` (the next server
/// of the same group) and ` : ` (an internal redirect to another group),
/// as nginx's documentation of `$upstream_addr` describes.
public struct NginxLogFormat: Hashable, Sendable {
    enum Token: Hashable, Sendable {
        case literal([UInt8])
        case variable(String, Field?)
    }

    /// The variables replay reads, each a slot of ``Fields``.
    enum Field: Int, CaseIterable, Hashable, Sendable {
        case timeLocal, timeISO8601, msec, request, requestMethod, requestURI, uri, status, requestTime
        case upstreamStatus, upstreamResponseTime
        /// A response header (`$sent_http_NAME`, `$upstream_http_NAME`).
        case header

        init?(variable name: String) {
            switch name {
            case "time_local": self = .timeLocal
            case "time_iso8601": self = .timeISO8601
            case "msec": self = .msec
            case "request": self = .request
            case "request_method": self = .requestMethod
            case "request_uri": self = .requestURI
            case "uri": self = .uri
            case "status": self = .status
            case "request_time": self = .requestTime
            case "upstream_status": self = .upstreamStatus
            case "upstream_response_time": self = .upstreamResponseTime
            default:
                if name.hasPrefix("sent_http_") || name.hasPrefix("upstream_http_") { self = .header } else { return nil }
            }
        }
    }

    public let name: String
    let tokens: [Token]
    /// Whether `key=value` fields may follow the format (`rt=0.120
    /// urt="0.001, 0.118" us="502, 200"`), the common extension of
    /// `combined` with timings appended.
    let trailingKeyValues: Bool

    /// The variables replay reads; any other variable is matched and
    /// dropped.
    static let timeVariables: Set<String> = ["time_local", "time_iso8601", "msec"]
    static let listVariables: Set<String> = [
        "upstream_status", "upstream_response_time", "upstream_addr", "upstream_connect_time",
        "upstream_header_time", "upstream_response_length", "upstream_bytes_received", "upstream_bytes_sent",
        "upstream_cache_status",
    ]

    /// A format as written in nginx.conf (`$remote_addr - $remote_user
    /// [$time_local] "$request" $status ...`), checked for what replay
    /// needs: a time, the request, and a status.
    public static func parse(_ text: String, name: String = "the given log_format") -> Result<NginxLogFormat, NginxFormatError> {
        var tokens: [Token] = []
        var literal: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 95
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "$") else {
                literal.append(byte)
                index += 1
                continue
            }
            var nameStart = index + 1
            var braced = false
            if nameStart < bytes.count, bytes[nameStart] == UInt8(ascii: "{") {
                braced = true
                nameStart += 1
            }
            var end = nameStart
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            guard end > nameStart else {
                return .failure(NginxFormatError(column: index + 1, message: "expected a variable name after '$'"))
            }
            if braced {
                guard end < bytes.count, bytes[end] == UInt8(ascii: "}") else {
                    return .failure(NginxFormatError(column: end + 1, message: "expected '}' to close '${'"))
                }
            }
            if let last = tokens.last, case .variable = last, literal.isEmpty {
                return .failure(NginxFormatError(
                    column: index + 1,
                    message: "two variables with nothing between them cannot be told apart in a log line"))
            }
            if !literal.isEmpty { tokens.append(.literal(literal)) }
            literal = []
            let variable = String(decoding: bytes[nameStart..<end], as: UTF8.self).lowercased()
            tokens.append(.variable(variable, Field(variable: variable)))
            index = braced ? end + 1 : end
        }
        if !literal.isEmpty { tokens.append(.literal(literal)) }
        let names = Set(tokens.compactMap { if case .variable(let name, _) = $0 { name } else { nil } })
        guard !names.isDisjoint(with: timeVariables) else {
            return .failure(NginxFormatError(column: 1, message: "the format has no time: expected $time_local, $time_iso8601 or $msec"))
        }
        guard names.contains("request") || names.contains("request_uri") || names.contains("uri") else {
            return .failure(NginxFormatError(column: 1, message: "the format has no request: expected $request, $request_uri or $uri"))
        }
        guard names.contains("status") || names.contains("upstream_status") else {
            return .failure(NginxFormatError(column: 1, message: "the format has no status: expected $status or $upstream_status"))
        }
        return .success(NginxLogFormat(name: name, tokens: tokens, trailingKeyValues: false))
    }

    /// nginx's predefined `combined`.
    package static let combinedText =
        #"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#

    /// ingress-nginx's default `upstreaminfo`, combined with the request
    /// time and the upstream lists appended.
    package static let ingressText =
        #"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id"#

    /// The formats recognised without `--nginx-log-format`, most specific
    /// first.
    public static let known: [NginxLogFormat] = {
        let ingress = try! parse(ingressText, name: "ingress-nginx upstreaminfo").get()
        let combined = try! parse(combinedText, name: "combined").get()
        return [ingress, NginxLogFormat(name: "combined", tokens: combined.tokens, trailingKeyValues: true)]
    }()

    /// Where the values of the variables replay reads are in a line (a
    /// value of `-` is absent), and the response headers' names and values.
    struct Fields {
        private var ranges: [Range<Int>?] = Array(repeating: nil, count: Field.allCases.count)
        var headers: [(name: String, value: Range<Int>)] = []

        subscript(field: Field) -> Range<Int>? {
            get { ranges[field.rawValue] }
            set { ranges[field.rawValue] = newValue }
        }
    }

    /// Matches one line; on a mismatch, the 1-based column and what was
    /// expected there.
    func match(_ line: ArraySlice<UInt8>) -> Fields? {
        if case .success(let fields) = matchLine(line) { return fields }
        return nil
    }

    func matchLine(_ line: ArraySlice<UInt8>) -> Result<Fields, NginxFormatError> {
        var fields = Fields()
        var position = line.startIndex
        for (offset, token) in tokens.enumerated() {
            switch token {
            case .literal(let text):
                guard position + text.count <= line.endIndex, line[position..<position + text.count].elementsEqual(text) else {
                    return .failure(NginxFormatError(
                        column: position - line.startIndex + 1,
                        message: "expected '\(String(decoding: text, as: UTF8.self))' (the \(name) format)"))
                }
                position += text.count
            case .variable(let name, let field):
                let start = position
                if Self.listVariables.contains(name) {
                    position = Self.endOfList(line, from: position)
                } else if offset + 1 < tokens.count, case .literal(let next) = tokens[offset + 1] {
                    guard let found = Self.find(next, in: line, from: position) else {
                        return .failure(NginxFormatError(
                            column: position - line.startIndex + 1,
                            message: "expected the value of $\(name), then '\(String(decoding: next, as: UTF8.self))' (the \(name == "request" ? "request line" : self.name + " format"))"))
                    }
                    position = found
                } else {
                    position = trailingKeyValues ? (line[position...].firstIndex(of: 32) ?? line.endIndex) : line.endIndex
                }
                if let field {
                    let value = start..<position
                    let absent = value.count == 1 && line[start] == UInt8(ascii: "-")
                    if field == .header {
                        let header = name.hasPrefix("sent_http_") ? name.dropFirst(10) : name.dropFirst(14)
                        if !absent, !value.isEmpty { fields.headers.append((header.replacingUnderscores, value)) }
                    } else if !absent {
                        fields[field] = value
                    }
                }
            }
        }
        if position < line.endIndex {
            guard trailingKeyValues else {
                return .failure(NginxFormatError(
                    column: position - line.startIndex + 1, message: "expected the end of the line (the \(name) format)"))
            }
            Self.readKeyValues(line[position...], into: &fields)
        }
        return .success(fields)
    }

    /// `rt=0.120 urt="0.001, 0.118" us="502, 200"` after `combined`: the
    /// names nginx's timing examples use, and the variables' own names.
    static let keyAliases: [([UInt8], Field)] = {
        let names: [(String, Field)] = [
            ("rt", .requestTime), ("request_time", .requestTime),
            ("urt", .upstreamResponseTime), ("upstream_response_time", .upstreamResponseTime),
            ("us", .upstreamStatus), ("ups", .upstreamStatus), ("upstream_status", .upstreamStatus),
        ]
        return names.map { (Array($0.0.utf8), $0.1) }
    }()

    private static func alias(_ key: ArraySlice<UInt8>) -> Field? {
        keyAliases.first { $0.0.elementsEqual(key) }?.1
    }

    private static func readKeyValues(_ rest: ArraySlice<UInt8>, into fields: inout Fields) {
        var index = rest.startIndex
        while index < rest.endIndex {
            while index < rest.endIndex, rest[index] == 32 { index += 1 }
            let keyStart = index
            while index < rest.endIndex, rest[index] != UInt8(ascii: "="), rest[index] != 32 { index += 1 }
            guard index < rest.endIndex, rest[index] == UInt8(ascii: "=") else { continue }
            let alias = Self.alias(rest[keyStart..<index])
            index += 1
            var valueStart = index
            var valueEnd: Int
            if index < rest.endIndex, rest[index] == UInt8(ascii: "\"") {
                valueStart += 1
                valueEnd = rest[valueStart...].firstIndex(of: UInt8(ascii: "\"")) ?? rest.endIndex
                index = min(valueEnd + 1, rest.endIndex)
            } else if alias == .upstreamStatus || alias == .upstreamResponseTime {
                valueEnd = endOfList(rest, from: index)
                index = valueEnd
            } else {
                valueEnd = rest[index...].firstIndex(of: 32) ?? rest.endIndex
                index = valueEnd
            }
            if let alias, valueStart < valueEnd, !(valueEnd - valueStart == 1 && rest[valueStart] == UInt8(ascii: "-")) {
                fields[alias] = valueStart..<valueEnd
            }
        }
    }

    /// The end of an upstream list: entries separated by `, ` or ` : `.
    static func endOfList(_ line: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        while true {
            while index < line.endIndex, ![32, 44, 34, 93].contains(line[index]) { index += 1 }
            if index + 1 < line.endIndex, line[index] == 44, line[index + 1] == 32 {
                index += 2
                continue
            }
            if index + 2 < line.endIndex, line[index] == 32, line[index + 1] == 58, line[index + 2] == 32 {
                index += 3
                continue
            }
            return index
        }
    }

    static func find(_ needle: [UInt8], in line: ArraySlice<UInt8>, from start: Int) -> Int? {
        guard let first = needle.first else { return start }
        var index = start
        while index + needle.count <= line.endIndex {
            if line[index] == first, line[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// Why a `log_format` or a line cannot be read, with the 1-based column.
public struct NginxFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    public var column: Int
    public var message: String
    public var description: String { "column \(column): \(message)" }
}
