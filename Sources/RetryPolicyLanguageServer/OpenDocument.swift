import RetryPolicyLint

/// A file open in the editor: its unsaved text and what its last check
/// found. Dropped when the editor closes it.
struct OpenDocument: Sendable {
    var uri: String
    /// Canonical path inside the root; `nil` when the file lies outside it.
    var path: String?
    var version: Int
    var text: DocumentText
    var kind: DocumentKind
    var result = CheckResult()
    /// The failures of the last "run tests", shown until the text changes.
    var testFailures: [LintFinding] = []
}
