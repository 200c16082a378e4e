/// Text for XML attributes and content (JUnit reports, SVG charts).
package enum XMLText {
    /// Escapes the five markup characters; control characters XML 1.0
    /// cannot hold become `?`.
    package static func escape(_ text: String) -> String {
        var output = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            case "\n", "\t", "\r": output.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20: output += "?"
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
