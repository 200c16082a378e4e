import RetryPolicyCore

/// A response an executor can judge by status and headers without the
/// operation having to throw (the decorator shape: the wrapped client
/// returns every response, and the policy decides which ones are failures).
public protocol RetryableResponse: Sendable {
    var statusCode: Int { get }
    /// The first value of the header `name`, compared case-insensitively.
    func headerValue(named name: String) -> String?
}

extension RetryDecider {
    /// The headers of `response` the policy reads, and only those: a
    /// response without them gives an empty list, which does not allocate.
    ///
    /// Specialised for the caller's response type but never inlined: inside
    /// the executor's async functions its header list and loop would
    /// otherwise land in the async frame of every request.
    @inlinable @inline(never)
    package func outcome(for response: some RetryableResponse) -> AttemptOutcome {
        var headers = ResponseHeaders.none
        for name in consultedHeaderNames {
            if let value = response.headerValue(named: name) {
                headers.append(name: name, value: value)
            }
        }
        return .response(status: response.statusCode, headers: headers)
    }
}
