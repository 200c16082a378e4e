import RetryPolicyCore

/// Checks that bytes are a policy file's kind of text before libyaml sees
/// them: within the size limit, valid UTF-8, free of NUL characters and
/// of byte order marks starting a line inside the file.
///
/// libyaml also rejects invalid UTF-8, but reports a byte offset; doing it
/// here gives a line and column like every other message.
enum TextValidation {
    static func check(_ bytes: UnsafeBufferPointer<UInt8>, path: String, limits: YAMLLimits) -> Diagnostic? {
        if bytes.count > limits.maxBytes {
            return Diagnostic(
                .limitExceeded, at: SourceLocation(file: path, line: 1, column: 1),
                "expected a policy file of at most \(limits.maxBytes) bytes, found \(bytes.count) bytes")
        }
        if bytes.count >= 2 && ((bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF)) {
            return Diagnostic(
                .encoding, at: SourceLocation(file: path, line: 1, column: 1),
                "expected UTF-8 text, found a UTF-16 byte order mark", suggestion: "save the file as UTF-8")
        }
        var line = 1
        var column = 1
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == 0 {
                return Diagnostic(
                    .encoding, at: SourceLocation(file: path, line: line, column: column),
                    "expected UTF-8 text, found a NUL byte (is this a binary or UTF-16 file?)")
            }
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else {
                let hex = String(byte, radix: 16, uppercase: true)
                return Diagnostic(
                    .encoding, at: SourceLocation(file: path, line: line, column: column),
                    "expected UTF-8 text, found the invalid byte 0x\(hex.count == 1 ? "0" + hex : hex)")
            }
            if length == 3, column == 1, byte == 0xEF, bytes[index + 1] == 0xBB, bytes[index + 2] == 0xBF {
                // A byte order mark inside the file (files joined together):
                // libyaml reads it as part of the key after it, which then
                // matches no key while looking like one (and refuses one
                // before a later document, which YAML would allow).
                return Diagnostic(
                    .encoding, at: SourceLocation(file: path, line: line, column: column),
                    "expected text, found a byte order mark (U+FEFF) at the start of a line inside the file",
                    suggestion: "delete it; only a file's very first character may be a byte order mark")
            }
            if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && (index + 1 == count || bytes[index + 1] != UInt8(ascii: "\n"))) {
                // LF, and a CR not followed by LF: line breaks as YAML counts them.
                line += 1
                column = 1
            } else if byte == UInt8(ascii: "\r") {
                // The CR of a CRLF: the LF ends the line.
            } else {
                column += 1
            }
            index += length
        }
        return nil
    }

    /// The length of the well-formed UTF-8 sequence at `index` (RFC 3629:
    /// no overlongs, no surrogates, nothing above U+10FFFF), or 0.
    private static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let first = bytes[index]
        if first < 0x80 { return 1 }
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch first {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0:
            return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF:
            return continuation(1) && continuation(2) ? 3 : 0
        case 0xED:
            return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0:
            return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3:
            return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4:
            return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default:
            return 0
        }
    }
}
