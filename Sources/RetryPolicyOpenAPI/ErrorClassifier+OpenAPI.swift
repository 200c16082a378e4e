#if OpenAPI  // the trait; without it this module is empty
import OpenAPIRuntime
import RetryPolicyExecutor

extension ErrorClassifier {
    /// Reads what a transport threw through the generated client's
    /// wrapping: the client hands a middleware a transport's error inside a
    /// `ClientError`, which `transport` (`.urlSession`,
    /// `.asyncHTTPClient`, or the standard classifier) then reads.
    public static func openAPI(transport: ErrorClassifier) -> ErrorClassifier {
        ErrorClassifier { error in
            guard let wrapped = error as? ClientError else { return nil }
            return transport.outcome(for: wrapped.underlyingError)
        }.chained(with: transport)
    }
}
#endif
