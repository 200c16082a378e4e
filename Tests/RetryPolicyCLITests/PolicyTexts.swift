/// Policy files the CLI tests write into scratch directories. Each is real
/// policy YAML in the documented format.
enum PolicyTexts {
    /// A retrying policy no semantic rule complains about.
    static let clean = """
        version: 1
        name: clean
        attempts: 3
        idempotency:
          methods: [GET, HEAD, PUT, DELETE, OPTIONS]
        backoff:
          initial: 1s
          max: 10s
          multiplier: 2
          jitter: full
        retry_after:
          cap: 60s
        timeouts:
          per_attempt: 5s
          total: 30s
        rules:
          - status: 429
            error: status_429
            action: retry
          - status: 501
            error: status_5xx
            action: stop
          - status: 5xx
            error: status_5xx
            action: retry
          - transport: [timeout, connection_lost]
            error: timeout
            action: retry
          - status: 4xx
            error: network_error
            action: stop
        default:
          error: network_error
          action: stop
        breaker: {}

        """

    /// The same decisions, written in a different order of keys and lines.
    static let cleanTwin = """
        version: 1
        name: clean-twin
        attempts: 3
        backoff: {initial: 1s, max: 10s, multiplier: 2, jitter: full}
        retry_after: {cap: 60s}
        timeouts: {per_attempt: 5s, total: 30s}
        idempotency:
          methods: [GET, HEAD, PUT, DELETE, OPTIONS]

        rules:
          - {status: 429, error: status_429, action: retry}
          - {status: 501, error: status_5xx, action: stop}
          - {status: 5xx, error: status_5xx, action: retry}
          - {transport: [timeout, connection_lost], error: timeout, action: retry}
          - {status: 4xx, error: network_error, action: stop}
        default: {error: network_error, action: stop}
        breaker: {}

        """

    /// Like `clean`, but 429 is not retried.
    static let stops429 = clean.replacingOccurrences(of: "name: clean", with: "name: stops-429")
        .replacingOccurrences(of: "error: status_429\n    action: retry", with: "error: status_429\n    action: stop")

    /// No jitter (RP107) and a 5xx rule that shadows a 503 rule (RP101) on
    /// known lines.
    static let problems = """
        version: 1
        name: problems
        attempts: 3
        idempotency:
          methods: [GET]
        backoff:
          initial: 1s
          max: 10s
          jitter: none
        retry_after:
          cap: 30s
        rules:
          - status: 5xx
            error: status_5xx
            action: retry
          - status: 503
            error: status_5xx
            action: stop
        default:
          error: network_error
          action: stop
        breaker: {}

        """
}
