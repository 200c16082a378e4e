/// A file's lines as YAML counts them: a line ends at LF, CRLF or a lone
/// CR, so every tool that points at "line N" means the line libyaml means.
public enum SourceLines {
    /// The lines of `text`, without their line breaks; a final line break
    /// gives a last, empty line.
    /// A leading byte order mark is not part of the first line.
    public static func split(_ text: String) -> [Substring] {
        let body = text.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
        // "\r\n" is one Character in Swift, so it is one separator here.
        return body.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }
}
