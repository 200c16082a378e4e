import ArgumentParser
import RetryPolicyCore

/// `--header 'Name: value'`, read by ``ResponseHeaders.Field.parse(_:)`` as curl writes it.
package enum HeaderArgument {
    /// For `@Option(transform:)`: the message says what was wrong.
    package static func parse(_ text: String) throws -> ResponseHeaders.Field {
        switch ResponseHeaders.Field.parse(text) {
        case .success(let field): return field
        case .failure(let error): throw ValidationError(error.description)
        }
    }
}
