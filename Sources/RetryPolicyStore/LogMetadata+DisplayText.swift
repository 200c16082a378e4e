import Logging
import RetryPolicyCore

extension Logger.MetadataValue {
    /// Text from outside the store (a file name, a policy name, a
    /// diagnostic that quotes a policy file, an error's text) as a metadata
    /// value: made safe to print with `DisplayText`. A log handler prints
    /// metadata as it is, so a raw line break would forge a log record and
    /// an escape sequence would reach whoever tails the log.
    static func shown(_ text: String) -> Self {
        .string(DisplayText.escaped(text))
    }

    /// Names from outside the store, each as `shown(_:)` makes it.
    static func shown(_ names: [String]) -> Self {
        .array(names.map { .shown($0) })
    }
}
