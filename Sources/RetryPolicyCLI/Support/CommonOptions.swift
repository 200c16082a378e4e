import ArgumentParser
import RetryPolicyCore
import RetryPolicyCommandSupport

/// A duration argument (`250ms`, `10s`, `1m30s`), parsed once, by the same
/// rules as policy files.
struct DurationArgument: ExpressibleByArgument, Sendable {
    var value: Duration

    init(_ value: Duration) { self.value = value }

    init?(argument: String) {
        guard case .success(let value) = DurationText.parse(argument) else { return nil }
        self.value = value
    }

    var defaultValueDescription: String { value.formattedForHumans }

    /// For `@Option(transform:)`: the message says what was wrong.
    static func parse(_ text: String) throws -> DurationArgument {
        switch DurationText.parse(text) {
        case .success(let value): return DurationArgument(value)
        case .failure(let error): throw ValidationError("expected a duration such as 250ms, 10s or 1m30s, found \(DisplayText.escaped("\(error)"))")
        }
    }
}

/// The request a decision or simulation is about: method, idempotency mark,
/// endpoint. Shared by `decide` and `simulate`.
struct RequestOptions: ParsableArguments {
    @Option(help: "The request method.")
    var method: String = "GET"

    @Flag(help: "The caller marked the request idempotent (it carries an idempotency key).")
    var idempotent = false

    @Option(help: "The endpoint (placement) whose timeout overrides apply.")
    var endpoint: String?

    func validate() throws {
        guard HTTPMethod.standard.contains(HTTPMethod(rawValue: method)) else {
            throw ValidationError("--method must be one of \(HTTPMethod.standard.map(\.rawValue).joined(separator: ", ")), found '\(DisplayText.escaped(method))'")
        }
    }

    var httpMethod: HTTPMethod { HTTPMethod(rawValue: method) }
}
