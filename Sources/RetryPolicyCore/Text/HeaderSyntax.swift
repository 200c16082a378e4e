extension ResponseHeaders.Field {
    /// Reads one header as curl writes it, `Name: value`: the one reader of
    /// `decide --header`, `request --header` and the headers of a scripted
    /// response (`429; Retry-After: 2`). curl's rules: the name is
    /// everything before the first `:` and is neither empty nor holds a
    /// space or a tab; the value is everything after it, without leading
    /// and trailing spaces and tabs (it may be empty, and may hold `:`).
    package static func parse(_ text: some StringProtocol) -> Result<ResponseHeaders.Field, HeaderSyntaxError> {
        let text = Substring(text)
        guard let colon = text.firstIndex(of: ":") else {
            return .failure(HeaderSyntaxError(text: String(text), problem: .noColon))
        }
        let name = text[..<colon]
        if name.isEmpty { return .failure(HeaderSyntaxError(text: String(text), problem: .emptyName)) }
        if let blank = name.firstIndex(where: { $0 == " " || $0 == "\t" }) {
            let column = text.distance(from: text.startIndex, to: blank) + 1
            return .failure(HeaderSyntaxError(text: String(text), problem: .blankInName(column: column)))
        }
        return .success(ResponseHeaders.Field(name: String(name), value: String(text[text.index(after: colon)...].trimmingSpaces)))
    }
}

/// Why a header is not `Name: value`; the message quotes it, says where it
/// went wrong and, for `Name=value`, how to write it.
package struct HeaderSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Problem: Hashable, Sendable {
        /// No `:` separates the name from the value.
        case noColon
        /// Nothing before the `:`.
        case emptyName
        /// A space or a tab in the name, at this column (from 1).
        case blankInName(column: Int)
    }

    package var text: String
    package var problem: Problem

    package var description: String {
        let found = "expected a header as curl writes it, 'Name: value', found '\(text)'"
        switch problem {
        case .noColon:
            // `Retry-After=3`: the `name=value` some other tools take.
            if let equals = text.firstIndex(of: "="), case .success(let field) = ResponseHeaders.Field.parse(text[..<equals] + ":" + text[text.index(after: equals)...]) {
                return "\(found): no ':' after the name; write '\(field.name): \(field.value)'"
            }
            return "\(found): no ':' after the name"
        case .emptyName:
            return "\(found): no name before ':'"
        case .blankInName(let column):
            return "\(found): the name holds a space or tab at column \(column)"
        }
    }
}
