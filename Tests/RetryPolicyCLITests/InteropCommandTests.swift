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

    static let twoMethods = """
        {"methodConfig": [
          {"name": [{"service": "shop.Cart"}], "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s",
            "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}},
          {"name": [{"service": "shop.Orders"}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "0.1s",
            "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}
        """

    @Test("a stack layer chooses one of several method configs with select:; without it lint names them")
    func stackLayerSelect() throws {
        let stack = """
            version: 1
            name: checkout-path
            stack:
              - {name: app, policy: api.yaml}
              - {name: sdk, policy: channel.yaml, select: shop.Cart/Add}
            max_amplification: 10

            """
        let unselected = stack.replacingOccurrences(of: ", select: shop.Cart/Add", with: "")
        let workspace = try Workspace(["api.yaml": Self.policy, "channel.yaml": Self.twoMethods, "stack.yaml": stack, "unselected.yaml": unselected])
        let chosen = try workspace.run(["lint", "stack.yaml"])
        #expect(chosen.stdout.contains("(app 4, sdk 5)") && chosen.stdout.contains("0 errors"), "\(chosen)")
        let ambiguous = try workspace.run(["lint", "unselected.yaml"])
        #expect(ambiguous.status == 1, "\(ambiguous)")
        #expect(ambiguous.stdout.contains("[RP025]") && ambiguous.stdout.contains("shop.Cart (line 2")
                && ambiguous.stdout.contains("shop.Orders (line 4") && ambiguous.stdout.contains("select:"), "\(ambiguous)")
    }

    @Test("a huge duration in a layer's gRPC or Istio file is a finding, never a crash of lint")
    func hugeDurationInLayer() throws {
        let grpc = #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "99999999999s", "maxBackoff": "99999999999s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#
        let istio = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: mesh}\nspec:\n  http:\n  - retries: {attempts: 3, perTryTimeout: 99999999999h}\n    timeout: 9223372036854775807ns\n"
        let stack = """
            version: 1
            name: path
            stack:
              - {name: sdk, policy: channel.yaml}
              - {name: mesh, policy: mesh.yaml}

            """
        let workspace = try Workspace(["channel.yaml": grpc, "mesh.yaml": istio, "stack.yaml": stack])
        let lint = try workspace.run(["lint", "."])
        #expect(lint.status == 0 || lint.status == 1, "\(lint)")
        #expect(lint.stdout.contains("4 x 4 = 16 requests (sdk 4, mesh 4)"), "\(lint)")
        let imported = try workspace.run(["import", "channel.yaml", "--from", "grpc"])
        #expect(imported.status == 0 && imported.stderr.contains("longer than a policy may state (100 days)"), "\(imported)")
    }

    @Test("import --list names the configurations; --output DIR writes each one")
    func importEveryConfiguration() throws {
        let workspace = try Workspace(["channel.json": Self.twoMethods])
        let list = try workspace.run(["import", "channel.json", "--from", "grpc", "--list"])
        #expect(list.status == 0)
        #expect(list.stdout == "shop.Cart\tchannel.json:2:3\tretryPolicy maxAttempts 5, UNAVAILABLE\nshop.Orders\tchannel.json:4:3\tretryPolicy maxAttempts 2, UNAVAILABLE\n", "\(list)")
        let refused = try workspace.run(["import", "channel.json", "--from", "grpc"])
        #expect(refused.status == 1 && refused.stderr.contains("[RPI06]") && refused.stdout.isEmpty, "\(refused)")
        let every = try workspace.run(["import", "channel.json", "--from", "grpc", "--output", "imported/"])
        #expect(every.status == 0, "\(every)")
        let lint = try workspace.run(["lint", "imported/shop.Cart.yaml", "imported/shop.Orders.yaml"])
        #expect(lint.stdout.contains("0 errors") && lint.stdout.contains("in 2 files"), "\(lint)")
        let one = try workspace.run(["import", "channel.json", "--from", "grpc", "--select", "shop.Orders/Get"])
        #expect(one.status == 0 && one.stdout.contains("attempts: 2"), "\(one)")
    }
}

