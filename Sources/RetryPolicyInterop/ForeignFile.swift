import RetryPolicyCore
import RetryPolicyYAML

/// A file written for another tool, as read from disk: its bytes and, for
/// the YAML and JSON formats, its documents, parsed once however many
/// handlers look at it.
public struct ForeignFile: Sendable {
    public let bytes: [UInt8]
    public let path: String
    /// The YAML (or JSON, which is YAML) documents of the file, or why it
    /// is not YAML. A stream of several documents (`---`) keeps them all;
    /// formats that read one document refuse more.
    let documents: Result<[YAMLNode], InteropError>

    public init(bytes: [UInt8], path: String) {
        self.bytes = bytes
        self.path = path
        do {
            documents = .success(try YAMLParser.parseDocuments(bytes: bytes, path: path))
        } catch {
            documents = .failure(InteropError(error.diagnostics))
        }
    }

    /// The first line of the file, where file-wide errors are reported.
    var start: SourceLocation { SourceLocation(file: path, line: 1, column: 1) }

    /// The single document of a one-document format.
    func document(of format: InteropFormat) throws(InteropError) -> YAMLNode {
        let documents = try self.documents.get()
        guard let first = documents.first else {
            throw InteropError(.notThisFormat, at: start, "expected a \(format.title), found an empty file")
        }
        if documents.count > 1 {
            throw InteropError(
                .notThisFormat, at: documents[1].location,
                "expected one \(format.title) document, found \(documents.count) documents (separated by ---)",
                suggestion: "split the file, one document each")
        }
        return first
    }

    /// The base name of the path without its extension, as a policy name.
    var baseName: String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { return String(last[..<dot]) }
        return last
    }
}
