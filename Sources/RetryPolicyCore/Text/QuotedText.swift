/// Text between double quotes that JSON and YAML (libyaml, 1.1 and 1.2)
/// both read back as exactly the original: what the exporters and the
/// policy writer put in the files they write.
package enum QuotedText {
    package static func doubleQuoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                // Control characters, and the line breaks YAML 1.1 (libyaml)
                // reads inside a quoted string (NEL, LS, PS), as escapes
                // that JSON and YAML read alike.
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
                    || scalar.value == 0x2029 || scalar.value == 0xFEFF
                {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
