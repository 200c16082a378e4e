#if OpenAPI  // the trait; without it this module is empty
import Foundation
import RetryPolicyCore

/// Whether the middleware adds an `Idempotency-Key` to a request whose
/// method its policy retries only with one.
///
/// A policy says which methods are safe to send twice
/// (`idempotency.retryable_methods`) and whether a request the caller
/// marked idempotent is retried whatever its method
/// (`idempotency.honor_idempotent_requests`). A request carrying an
/// `Idempotency-Key` header is so marked, by every adapter. The key the
/// caller sets (an operation that declares the header) is always kept, and
/// sent unchanged on every attempt.
///
/// With `generated`, a request of a method the policy does not list, to
/// a policy that honours idempotent requests, gets one key, made once
/// before its first attempt and sent on every attempt, so that a server
/// that deduplicates by it performs the operation once. Turn it on only
/// for servers that do: to one that ignores the header, the key makes a
/// `POST` retried that is not safe to retry.
public struct IdempotencyKeys: Sendable {
    let make: (@Sendable () -> String)?

    /// Only a key the caller set marks a request idempotent (the default).
    public static let callers = IdempotencyKeys(make: nil)
    /// A random UUID per request, when the policy retries its method only
    /// with a key.
    public static let generated = IdempotencyKeys { UUID().uuidString.lowercased() }

    /// Keys made by `make` (one call per request), when the policy retries
    /// the request's method only with a key.
    public static func generated(by make: @escaping @Sendable () -> String) -> IdempotencyKeys {
        IdempotencyKeys(make: make)
    }

    /// The key to add to a request of `method` under `idempotency`, or
    /// `nil` when it needs none (or this setting adds none).
    func key(for method: HTTPMethod, under idempotency: Idempotency) -> String? {
        guard let make, idempotency.honorIdempotentRequests, !idempotency.retryableMethods.contains(method) else {
            return nil
        }
        return make()
    }
}
#endif
