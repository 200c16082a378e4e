import Foundation
import Testing

@Suite("retry-policy export, import, diff --against and foreign stack layers", .serialized)
struct InteropCommandTests {
    static let policy = """
        version: 1
        name: api
        attempts: 4
        idempotency:
          methods: [GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE, CONNECT]
        backoff: {initial: 100ms, max: 1s, multiplier: 2, jitter: full}
        retry_after: {honor: false}
        timeouts: {per_attempt: 2s, total: 10s}
        rules:
          - {status: [502, 503, 504], error: status_5xx, action: retry}
          - {transport: [connection_refused, dns, tls, offline, connection_lost, timeout], error: network_error, action: retry}
        default: {error: internal_error, action: stop}

        """

    static let envoyRoute = """
        name: local_route
        virtual_hosts:
        - name: backend
          domains: ["*"]
          routes:
          - match: {prefix: "/"}
            route:
              cluster: api
              timeout: 10s
              retry_policy:
                retry_on: 5xx
                num_retries: 2
                per_try_timeout: 2s
                retry_back_off: {base_interval: 0.1s, max_interval: 1s}

        """

    @Test("export --to envoy writes the route fields; a lossless policy has no warnings")
    func exportEnvoy() throws {
        let workspace = try Workspace(["api.yaml": Self.policy])
        let result = try workspace.run(["export", "api.yaml", "--to", "envoy"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.contains("retry_on: \"gateway-error\""), "\(result)")
        #expect(result.stdout.contains("num_retries: 3"), "\(result)")
        #expect(result.stdout.contains("per_try_timeout: \"2s\""), "\(result)")
    }

    @Test("export warns at the policy key, and --strict makes it an error with nothing written")
    func exportStrict() throws {
        let lossy = Self.policy.replacingOccurrences(of: "jitter: full", with: "jitter: equal")
        let workspace = try Workspace(["api.yaml": lossy])
        let warned = try workspace.run(["export", "api.yaml", "--to", "grpc"])
        #expect(warned.status == 0, "\(warned)")
        #expect(warned.stderr.contains("api.yaml:6:"), "\(warned)")
        #expect(warned.stderr.contains("warning:") && warned.stderr.contains("[backoff.jitter]"), "\(warned)")
        #expect(warned.stdout.contains("\"retryableStatusCodes\""), "\(warned)")
        let strict = try workspace.run(["export", "api.yaml", "--to", "grpc", "--strict"])
        #expect(strict.status == 1, "\(strict)")
        #expect(strict.stdout.isEmpty, "\(strict)")
        #expect(strict.stderr.contains("error:"), "\(strict)")
    }

    @Test("import writes a policy the other commands load")
    func importEnvoy() throws {
        let workspace = try Workspace(["route.yaml": Self.envoyRoute])
        let result = try workspace.run(["import", "route.yaml", "--from", "envoy", "--output", "imported.yaml"])
        #expect(result.status == 0, "\(result)")
        let table = try workspace.run(["table", "imported.yaml"])
        #expect(table.status == 0, "\(table)")
        let lint = try workspace.run(["lint", "imported.yaml"])
        #expect(lint.status != 2, "\(lint)")
    }

    @Test("import rejects an invalid gRPC service config with a located error")
    func importInvalidGRPC() throws {
        let workspace = try Workspace(["bad.json": """
            {"methodConfig": [{"name": [{}],
              "retryPolicy": {"maxAttempts": 1, "initialBackoff": "0.1s", "maxBackoff": "1s",
                              "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}
            """])
        let result = try workspace.run(["import", "bad.json", "--from", "grpc"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("bad.json:2:34: error: methodConfig[0].retryPolicy.maxAttempts: must be at least 2, found 1 [RPI03]"), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test("diff --against lists the inputs where the mesh differs from the policy")
    func diffAgainst() throws {
        let workspace = try Workspace(["api.yaml": Self.policy, "route.yaml": Self.envoyRoute])
        let result = try workspace.run(["diff", "api.yaml", "--against", "route.yaml"])
        #expect(result.status == 1, "\(result)")
        // The mesh retries every 5xx and makes one attempt fewer.
        #expect(result.stdout.contains("status 500-501, 505-599"), "\(result)")
        #expect(result.stdout.contains("attempt 3"), "\(result)")
        let same = Self.envoyRoute.replacingOccurrences(of: "retry_on: 5xx", with: "retry_on: gateway-error")
            .replacingOccurrences(of: "num_retries: 2", with: "num_retries: 3")
        try workspace.write("same.yaml", same)
        let identical = try workspace.run(["diff", "api.yaml", "--against", "same.yaml"])
        #expect(identical.status == 0, "\(identical)")
    }

    @Test("a stack layer may name an Envoy route or gRPC service config; lint multiplies their attempts")
    func foreignStack() throws {
        let grpc = """
            {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s",
              "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}
            """
        let stack = """
            version: 1
            name: checkout-path
            stack:
              - {name: app, policy: api.yaml}
              - {name: sdk, policy: channel.yaml}
              - {name: envoy, policy: route.yaml}
            max_amplification: 10

            """
        let workspace = try Workspace(["api.yaml": Self.policy, "route.yaml": Self.envoyRoute, "channel.yaml": grpc, "stack.yaml": stack])
        let result = try workspace.run(["lint", "stack.yaml"])
        #expect(result.stdout.contains("4 x 4 x 3 = 48 requests (app 4, sdk 4, envoy 3)"), "\(result)")
    }
}
