import ArgumentParser
import RetryPolicyCore
import RetryPolicyCommandSupport

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented starter policy and its tests file.",
        discussion: """
            Writes NAME.yaml (a policy for an HTTP API client: 5xx, 429 and timeouts retried with \
            full-jitter exponential backoff, Retry-After believed up to a cap, client errors never \
            retried, POST only with an idempotency key) and NAME.tests.yaml (its unit tests) into \
            the directory (inside the root; missing folders are created), ready for `retry-policy lint` \
            and `retry-policy test`. Existing files are never replaced unless --force is given, and \
            a symbolic link is never written through or replaced.

            Exit status: 0 written, 2 a file exists or cannot be written.
            """)

    @Argument(help: "The policy's name: lower case letters, digits and dashes.")
    var name: String

    @Option(help: ArgumentHelp("Where to write the files.", valueName: "DIR"))
    var directory: String = "."

    @OptionGroup var writeOptions: WriteOptions

    @OptionGroup var rootOptions: RootOptions

    func validate() throws {
        let allowed = name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        guard !name.isEmpty, allowed, name.first != "-" else {
            throw ValidationError("the name must be lower case letters, digits and dashes, found '\(DisplayText.escaped(name))'")
        }
    }

    func run() throws {
        let root = try rootOptions.policyRoot()
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let files = [(base + name + ".yaml", StarterPolicy.policy(name: name)), (base + name + ".tests.yaml", StarterPolicy.tests(name: name))]
        // Both are checked before either is written.
        for (path, _) in files { try OutputFiles.check(path, root: root, force: writeOptions.force) }
        for (path, text) in files { try OutputFiles.write(text, to: path, root: root, force: writeOptions.force) }
        StandardOutput.write(files.map { "wrote \(DisplayText.escaped($0.0))\n" }.joined()
            + "next: retry-policy lint \(DisplayText.escaped(files[0].0)) && retry-policy test \(DisplayText.escaped(files[1].0))\n")
    }
}

/// The files `retry-policy init` writes.
enum StarterPolicy {
    static func policy(name: String) -> String {
        """
        # Retry policy of \(name). Every key is explained in docs/policy-format.md;
        # `retry-policy lint` checks it and `retry-policy test` runs \(name).tests.yaml.
        version: 1
        name: \(name)
        description: Retry transient failures of \(name) with jittered exponential backoff

        # Every try counts, the first included: 1 try + 3 retries.
        attempts: 4

        backoff:
          initial: 500ms       # the first retry waits up to 0.5 s ...
          max: 10s             # ... each later one twice as long, never more than 10 s
          multiplier: 2
          jitter: full         # a random wait in [0, delay]: a fleet does not retry in step

        retry_after:
          honor: true          # a 429 or 503 that says when to come back is believed ...
          cap: 30s             # ... up to 30 s
          above_cap: stop      # longer than that: fail now instead of hanging

        timeouts:
          per_attempt: 10s     # one try may take this long
          total: 60s           # the whole request, waits included

        idempotency:
          methods: [GET, HEAD, PUT, DELETE, OPTIONS]   # POST and PATCH are not retried ...
          honor_idempotent_requests: true              # ... unless the request has an idempotency key

        breaker:               # stop sending while the server is down: when half of the
          failure_ratio: 0.5   # last 100 calls failed (20 at least), attempts fail at once
          break: 30s           # with circuit_open for 30 s; then 5 probes decide

        # The first rule that matches decides.
        rules:
          - status: 429
            error: status_429
            action: retry
          # 501 Not Implemented never succeeds on a retry.
          - status: 501
            error: status_5xx
            action: stop
          - status: 5xx
            error: status_5xx
            action: retry
          - transport: [timeout, connection_lost]
            error: network_error
            action: retry
          - status: [401, 403]
            error: unauthorized
            action: stop
          - status: 4xx
            error: client_error
            action: stop
          - transport: [offline, dns, tls, connection_refused, cancelled, invalid_url, decoding, unknown]
            error: network_error
            action: stop

        default:               # 1xx and 3xx
          error: internal_error
          action: stop

        errors:
          client_error: {}

        """
    }

    static func tests(name: String) -> String {
        """
        # Unit tests of \(name).yaml: retry-policy test \(name).tests.yaml
        policy: \(name).yaml
        cases:
          - name: a 503 is retried within the first backoff
            status: 503
            expect: {action: retry, error: status_5xx, delay: {min: 0s, max: 500ms}}
          - name: the fourth attempt is the last
            status: 503
            attempt: 4
            expect: {action: stop, error: status_5xx, reason: attempts_exhausted}
          - name: a 429 waits what Retry-After says
            status: 429
            retry_after: "2"
            expect: {action: retry, error: status_429, delay: {min: 2s, max: 2s}}
          - name: a Retry-After above the cap stops at once
            status: 429
            retry_after: "120"
            expect: {action: stop, error: status_429, reason: retry_after_too_long}
          - name: client errors are never retried
            status: 404
            expect: {action: stop, error: client_error}
          - name: a POST without an idempotency key is not retried
            status: 503
            method: POST
            expect: {action: stop, error: status_5xx}
          - name: a timeout is retried
            transport: timeout
            expect: {action: retry, error: network_error}
        sequences:
          - name: two 503s, then success
            responses: [503, 503, 200]
            expect: {result: success, attempts: 3}
          - name: a persistent 500 uses every attempt
            responses: [500]
            expect: {result: stop, error: status_5xx, reason: attempts_exhausted, attempts: 4}

        """
    }
}
