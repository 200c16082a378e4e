/// RFC 9110 §5.6.2 tokens, the syntax of header names: what a policy's
/// `retry_after.headers` and an imported configuration's header names must
/// be.
package enum HTTPToken {
    package static func isValid(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256 && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0)
        }
    }
}
