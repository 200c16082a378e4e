/// `%XX` escapes of URLs (RFC 3986 §2.1), decoded without Foundation.
package enum PercentEncoding {
    /// `text` with every `%XX` (two hexadecimal digits) replaced by its
    /// byte; a `%` not followed by two hexadecimal digits is kept as it is.
    /// Bytes that do not form UTF-8 become U+FFFD, so the result is always
    /// a string and the call never fails.
    package static func decoded(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var utf8 = text.utf8[...]
        while let byte = utf8.first {
            utf8 = utf8.dropFirst()
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let high = hexValue(utf8[utf8.startIndex]), let low = hexValue(utf8[utf8.index(after: utf8.startIndex)])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    package static func decoded(_ text: String) -> String { decoded(text[...]) }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
