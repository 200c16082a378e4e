import RetryPolicyCore
import RetryPolicyYAML

/// What reading one policy file gave: its text, or the located reason it
/// was not read (a link leading out of the directory, a FIFO, a file over
/// the size limit...).
///
/// Compared across reloads to tell whether the file changed: a file whose
/// reason for not being read changes has changed too.
enum PolicyFileRead: Hashable, Sendable {
    case text(String)
    case unreadable(PolicyFileReadError)

    /// What the confined reader returned for the file.
    init(_ result: Result<[UInt8], PolicyLoadError>) {
        switch result {
        case .success(let bytes): self = .text(String(decoding: bytes, as: UTF8.self))
        case .failure(let error): self = .unreadable(PolicyFileReadError(diagnostics: error.diagnostics))
        }
    }
}

/// Why a policy file was not read, as the located diagnostics the reader
/// gave (`file:line:column: error: ...`).
struct PolicyFileReadError: Error, Hashable, Sendable, CustomStringConvertible {
    var diagnostics: [Diagnostic]

    var description: String { Diagnostic.lines(diagnostics) }
}
