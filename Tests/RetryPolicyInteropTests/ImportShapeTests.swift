import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyYAML
import Testing

/// Where real files keep their retry settings, and how one of several is
/// chosen: Envoy dumps in both field-name styles, listeners and config
/// dumps; multi-document Istio files; gRPC service configs with several
/// method configs and the DNS TXT record form; AWS profiles.
@Suite("Import: where real files keep retry settings, and choosing one")
struct ImportShapeTests {
    static func file(_ text: String, _ path: String = "config.yaml") -> ForeignFile {
        ForeignFile(bytes: Array(text.utf8), path: path)
    }

    static func refusal(_ text: String, _ format: InteropFormat, selection: String? = nil) -> Diagnostic? {
        do {
            _ = try Importer.importPolicy(file(text), from: format, selection: selection)
            return nil
        } catch {
            return error.diagnostics.first
        }
    }

    // MARK: Envoy

    static let snakeRoutes = """
        name: local_route
        virtual_hosts:
        - name: backend
          domains: ["*"]
          routes:
          - name: checkout
            match: {prefix: /checkout}
            route:
              cluster: checkout
              timeout: 3s
              retry_policy:
                retry_on: 5xx,reset
                num_retries: 2
                per_try_timeout: 0.5s
                retry_back_off: {base_interval: 0.1s, max_interval: 1s}
          - name: static
            match: {prefix: /}
            route: {cluster: static}
        - name: admin
          domains: [admin.example.com]
          retry_policy: {retry_on: connect-failure, num_retries: 1}
          routes:
          - match: {prefix: /}
            route: {cluster: admin}
        """

    static let camelRoutes = """
        name: local_route
        virtualHosts:
        - name: backend
          domains: ["*"]
          routes:
          - name: checkout
            match: {prefix: /checkout}
            route:
              cluster: checkout
              timeout: 3s
              retryPolicy:
                retryOn: 5xx,reset
                numRetries: 2
                perTryTimeout: 0.5s
                retryBackOff: {baseInterval: 0.1s, maxInterval: 1s}
          - name: static
            match: {prefix: /}
            route: {cluster: static}
        - name: admin
          domains: [admin.example.com]
          retryPolicy: {retryOn: connect-failure, numRetries: 1}
          routes:
          - match: {prefix: /}
            route: {cluster: admin}
        """

    @Test("Envoy: snake_case and proto3-JSON camelCase names import to the same policies")
    func envoyBothNameStyles() throws {
        let snake = try Importer.importEvery(Self.file(Self.snakeRoutes), from: .envoy)
        let camel = try Importer.importEvery(Self.file(Self.camelRoutes), from: .envoy)
        #expect(snake.errors.isEmpty && camel.errors.isEmpty)
        #expect(snake.policies.map(\.name) == ["checkout", "admin"])
        #expect(zip(snake.policies, camel.policies).allSatisfy { PolicyDiff.compare($0.policy, $1.policy).isIdentical })
        let checkout = snake.policies[0]
        #expect(checkout.attempts == 3 && checkout.timeouts.total == .seconds(3) && checkout.timeouts.perAttempt == .milliseconds(500))
        #expect(checkout.backoff.initial == .milliseconds(100) && checkout.backoff.max == .seconds(1))
    }

    @Test("Envoy: several retry policies are listed; --select takes a route's or virtual host's name")
    func envoySelection() throws {
        let candidates = try Importer.candidates(Self.file(Self.snakeRoutes), from: .envoy)
        #expect(candidates.map(\.name) == ["checkout", "admin"])
        #expect(candidates.first { $0.name == "checkout" }?.aliases == ["backend"])
        let ambiguous = try #require(Self.refusal(Self.snakeRoutes, .envoy))
        #expect(ambiguous.id == "RPI06" && ambiguous.message.contains("admin (line 21") && ambiguous.message.contains("checkout (line 12"))
        let host = try Importer.importPolicy(Self.file(Self.snakeRoutes), from: .envoy, selection: "admin")
        #expect(host.attempts == 2 && host.retriedTransports.contains(.connectionRefused))
        let byHost = try Importer.importPolicy(Self.file(Self.camelRoutes), from: .envoy, selection: "backend")
        #expect(byHost.attempts == 3)
        let missing = try #require(Self.refusal(Self.snakeRoutes, .envoy, selection: "nope"))
        #expect(missing.id == "RPI06" && missing.message.contains("\"nope\", which names none"))
    }

    @Test("Envoy: a Listener's inline route_config, an admin config_dump and istioctl's list of route configurations")
    func envoyDumps() throws {
        let listener = """
            name: listener_0
            address: {socket_address: {address: 0.0.0.0, port_value: 10000}}
            filter_chains:
            - filters:
              - name: envoy.filters.network.http_connection_manager
                typed_config:
                  "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                  stat_prefix: ingress_http
                  route_config:
                    name: local_route
                    virtual_hosts:
                    - name: local_service
                      domains: ["*"]
                      routes:
                      - match: {prefix: "/"}
                        route:
                          cluster: service
                          retry_policy: {retry_on: gateway-error, num_retries: 4}
            """
        let fromListener = try Importer.importPolicy(Self.file(listener), from: .envoy)
        #expect(fromListener.attempts == 5 && fromListener.name == "config")
        let dump = """
            {"configs": [
              {"@type": "type.googleapis.com/envoy.admin.v3.ListenersConfigDump"},
              {"@type": "type.googleapis.com/envoy.admin.v3.RoutesConfigDump",
               "dynamic_route_configs": [{"version_info": "7", "route_config": {
                 "@type": "type.googleapis.com/envoy.config.route.v3.RouteConfiguration", "name": "80",
                 "virtual_hosts": [{"name": "reviews:9080", "domains": ["reviews"], "routes": [
                   {"name": "default", "match": {"prefix": "/"}, "route": {"cluster": "reviews", "timeout": "0s",
                    "retry_policy": {"retry_on": "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes",
                      "num_retries": 2, "retriable_status_codes": [503], "retry_host_predicate": [{"name": "envoy.retry_host_predicates.previous_hosts"}],
                      "host_selection_retry_max_attempts": "5"}}}]}]}}]}]}
            """
        let fromDump = try Importer.importPolicy(Self.file(dump, "dump.json"), from: .envoy)
        #expect(fromDump.attempts == 3 && fromDump.retriedStatuses == [503] && fromDump.timeouts.total == nil)
        let istioctl = """
            [{"name": "80", "virtualHosts": [{"name": "a", "domains": ["a"], "routes": [{"name": "r1", "match": {"prefix": "/"},
              "route": {"cluster": "a", "retryPolicy": {"retryOn": "5xx", "numRetries": 3}}}]}]},
             {"name": "9080", "virtualHosts": [{"name": "b", "domains": ["b"], "routes": [{"name": "r2", "match": {"prefix": "/"},
              "route": {"cluster": "b", "retryPolicy": {"retryOn": "reset", "numRetries": 1}}}]}]}]
            """
        #expect(try Importer.candidates(Self.file(istioctl, "routes.json"), from: .envoy).map(\.name) == ["r1", "r2"])
        #expect(try Importer.importPolicy(Self.file(istioctl, "routes.json"), from: .envoy, selection: "r2").attempts == 2)
        #expect(Importer.detectFormat(Self.file(listener)) == .envoy && Importer.detectFormat(Self.file(dump)) == .envoy)
    }

    @Test("Envoy: files with no route retry policy say what they hold")
    func envoyNothingToImport() throws {
        let rds = """
            name: listener_0
            filter_chains:
            - filters:
              - typed_config:
                  rds: {route_config_name: local_route}
            """
        let listener = try #require(Self.refusal(rds, .envoy))
        #expect(listener.id == "RPI05" && listener.message.contains("from RDS"))
        let extAuthz = """
            name: listener_0
            filter_chains:
            - filters:
              - typed_config:
                  http_filters:
                  - typed_config:
                      http_service:
                        retry_policy: {num_retries: 3, retry_on: 5xx}
            """
        let service = try #require(Self.refusal(extAuthz, .envoy))
        #expect(service.id == "RPI05" && service.location.line == 8 && service.message.contains("ext_authz"))
        let noRetries = "virtual_hosts:\n- name: a\n  domains: ['*']\n  routes:\n  - match: {prefix: /}\n    route: {cluster: a}\n"
        let plain = try #require(Self.refusal(noRetries, .envoy))
        #expect(plain.id == "RPI05" && plain.message.contains("1 virtual host and 1 route"))
        let cluster = try #require(Self.refusal("name: c\nconnect_timeout: 1s\ncircuit_breakers: {thresholds: [{max_retries: 3}]}\n", .envoy))
        #expect(cluster.id == "RPI04" && cluster.message.contains("a cluster's settings"))
        let v1 = try #require(Self.refusal("retry_on: 5xx\nnum_retries: 3\nper_try_timeout_ms: 2000\n", .envoy))
        #expect(v1.id == "RPI03" && v1.location.line == 3 && v1.message.contains("per_try_timeout_ms"))
    }

    // MARK: Istio

    static let istioFile = """
        apiVersion: networking.istio.io/v1
        kind: DestinationRule
        metadata: {name: reviews}
        spec: {host: reviews}
        ---
        apiVersion: networking.istio.io/v1
        kind: VirtualService
        metadata: {name: ratings}
        spec:
          http:
          - retries: {attempts: 4, retryOn: 5xx}
        ---
        apiVersion: networking.istio.io/v1
        kind: VirtualService
        metadata: {name: reviews}
        spec:
          http:
          - name: writes
            match: [{method: {exact: POST}}]
            retries: {attempts: 0}
          - name: reads
            retries: {attempts: 2, perTryTimeout: 1s, retryOn: "reset,503"}
            timeout: 4s
        ---
        """

    @Test("Istio: every VirtualService of a multi-document file; other kinds skipped; --select by metadata.name or route name")
    func istioDocuments() throws {
        let file = Self.file(Self.istioFile)
        #expect(try Importer.candidates(file, from: .istio).map(\.name) == ["ratings", "writes", "reads"])
        #expect(Importer.detectFormat(file) == .istio)
        let ambiguous = try #require(Self.refusal(Self.istioFile, .istio))
        #expect(ambiguous.id == "RPI06" && ambiguous.message.contains("ratings (line 11") && ambiguous.message.contains("reads (line 21"))
        let ratings = try Importer.importPolicy(file, from: .istio, selection: "ratings")
        #expect(ratings.attempts == 5 && ratings.name == "ratings")
        let reads = try Importer.importPolicy(file, from: .istio, selection: "reads")
        #expect(reads.attempts == 3 && reads.timeouts.total == .seconds(4) && reads.retriedStatuses == [503])
        #expect(try Importer.importPolicy(file, from: .istio, selection: "writes").attempts == 1)
        let everything = try Importer.importEvery(file, from: .istio)
        #expect(everything.policies.map(\.name) == ["ratings", "writes", "reads"] && everything.errors.isEmpty)
    }

    @Test("Istio: a file without a VirtualService names the kinds it found")
    func istioOtherKinds() throws {
        let text = "kind: Gateway\nmetadata: {name: g}\n---\nkind: DestinationRule\nmetadata: {name: d}\n"
        let refusal = try #require(Self.refusal(text, .istio))
        #expect(refusal.id == "RPI04" && refusal.message.contains("found Gateway, DestinationRule"))
        let tcpOnly = try #require(Self.refusal("kind: VirtualService\nmetadata: {name: t}\nspec:\n  tcp: [{route: []}]\n", .istio))
        #expect(tcpOnly.id == "RPI05")
    }

    @Test("Istio: a route without retries takes Istio's default, 2 retries including status 503")
    func istioDefaults() throws {
        let imported = try Importer.importPolicy(Self.file("kind: VirtualService\nmetadata: {name: d}\nspec:\n  http:\n  - route: []\n"), from: .istio)
        #expect(imported.attempts == 3 && imported.retriedStatuses == [503])
        #expect(imported.retriedTransports.isSuperset(of: [.connectionRefused, .dns]))
    }

    // MARK: gRPC

    static let grpcConfig = """
        {"methodConfig": [
          {"name": [{"service": "shop.Cart"}], "timeout": "10s",
           "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}},
          {"name": [{"service": "shop.Cart", "method": "Checkout"}], "timeout": "30s"},
          {"name": [{}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}
        ],
         "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}
        """

    @Test("gRPC: several method configs are listed; --select looks a method up as gRPC does")
    func grpcSelection() throws {
        let file = Self.file(Self.grpcConfig, "service.json")
        #expect(try Importer.candidates(file, from: .grpc).map(\.name) == ["shop.Cart", "shop.Cart/Checkout", "*"])
        let ambiguous = try #require(Self.refusal(Self.grpcConfig, .grpc))
        #expect(ambiguous.id == "RPI06" && ambiguous.message.contains("shop.Cart/Checkout (line 4: no retryPolicy, timeout 30s)"))
        // The method's own config, else its service's, else the default.
        #expect(try Importer.importPolicy(file, from: .grpc, selection: "shop.Cart/Checkout").attempts == 1)
        #expect(try Importer.importPolicy(file, from: .grpc, selection: "shop.Cart/AddItem").attempts == 4)
        #expect(try Importer.importPolicy(file, from: .grpc, selection: "/shop.Cart/AddItem").timeouts.total == .seconds(10))
        #expect(try Importer.importPolicy(file, from: .grpc, selection: "shop.Orders/List").attempts == 2)
        let every = try Importer.importEvery(file, from: .grpc)
        #expect(every.policies.map(\.name) == ["shop.Cart", "shop.Cart-Checkout", "default"])
        #expect(every.policies.allSatisfy { $0.budget == .grpc(maxTokens: 10, tokenRatioThousandths: 100) })
        for policy in every.policies { _ = try loadPolicy(policyFile(policy)) }
    }

    @Test("gRPC: the DNS TXT record form, as a list of choices or one choice")
    func grpcDNSForm() throws {
        let inner = #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.5s", "maxBackoff": "5s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#
        for text in [#"[{"clientLanguage": ["go", "c++"], "percentage": 100, "serviceConfig": \#(inner)}]"#,
                     #"{"clientLanguage": ["go"], "serviceConfig": \#(inner)}"#] {
            let file = Self.file(text, "txt.json")
            #expect(Importer.detectFormat(file) == .grpc)
            let imported = try Importer.importPolicy(file, from: .grpc)
            #expect(imported.attempts == 3 && imported.backoff.initial == .milliseconds(500))
            #expect(imported.comments[""]?.contains { $0.contains("DNS TXT record form") } == true)
        }
        let empty = try #require(Self.refusal("[]", .grpc))
        #expect(empty.id == "RPI05")
    }

    @Test("gRPC: hedgingPolicy imports as hedging; beside a retryPolicy, or invalid, it is a warning")
    func grpcHedging() throws {
        let hedged = #"{"methodConfig": [{"name": [{"service": "a"}], "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.5s", "nonFatalStatusCodes": ["UNAVAILABLE"]}}]}"#
        let imported = try Importer.importPolicy(Self.file(hedged, "h.json"), from: .grpc)
        #expect(imported.attempts == 3 && imported.hedging?.delay == .milliseconds(500))
        #expect(imported.retriedGRPC == [.unavailable])
        let reloaded = try loadPolicy(policyFile(imported))
        #expect(reloaded.hedging?.delay == .milliseconds(500))
        let both = #"{"methodConfig": [{"name": [{"service": "a"}], "hedgingPolicy": {"maxAttempts": 3}, "retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#
        let retried = try Importer.importPolicy(Self.file(both, "b.json"), from: .grpc)
        #expect(retried.hedging == nil && retried.warnings.contains { $0.feature == "hedgingPolicy" })
        let invalid = #"{"methodConfig": [{"name": [{"service": "a"}], "hedgingPolicy": {"maxAttempts": "x"}}]}"#
        let refusal = try #require(Self.refusal(invalid, .grpc))
        #expect(refusal.id == "RPI05", "an invalid hedgingPolicy is ignored by gRPC's C core, so the file has no retry settings")
    }

    @Test("gRPC: a file without retry settings names what it found")
    func grpcNoRetrySettings() throws {
        let refusal = try #require(Self.refusal(#"{"methodConfig": [{"name": [{"service": "a"}], "timeout": "5s"}, {"timeout": "1s"}]}"#, .grpc))
        #expect(refusal.id == "RPI05")
        #expect(refusal.message.contains("2 methodConfigs, 2 with a timeout, 1 naming no method"))
    }

    // MARK: AWS

    @Test("AWS: a file without a default profile lists its profiles and how to choose")
    func awsWithoutDefault() throws {
        let text = "[profile batch]\nretry_mode = standard\nmax_attempts = 5\n\n[profile web]\nretry_mode = adaptive\n\n[sso-session corp]\nsso_region = us-east-1\n"
        let refusal = try #require(Self.refusal(text, .awsConfig))
        #expect(refusal.id == "RPI06" && refusal.message.contains("batch (line 1: retry_mode standard, max_attempts 5)")
                && refusal.message.contains("web (line 5") && !refusal.message.contains("corp"))
        #expect(refusal.suggestion?.contains("--select") == true)
        #expect(try Importer.importPolicy(Self.file(text), from: .awsConfig, selection: "batch").attempts == 5)
        let none = try #require(Self.refusal("[default]\nregion = eu-west-1\n[profile x]\noutput = json\n", .awsConfig))
        #expect(none.id == "RPI05" && none.message.contains("2 profiles (default, x)"))
    }

    // MARK: resilience4j

    @Test("resilience4j: several instances are listed; one, or configs.default, imports without --select")
    func resilience4jSelection() throws {
        let text = """
            resilience4j.retry:
              configs:
                default: {maxAttempts: 4, waitDuration: 100ms}
              instances:
                a: {baseConfig: default}
                b: {maxAttempts: 2}
            """
        let refusal = try #require(Self.refusal(text, .resilience4j))
        #expect(refusal.id == "RPI06" && refusal.message.contains("a (line 5") && refusal.message.contains("b (line 6"))
        #expect(try Importer.importPolicy(Self.file(text), from: .resilience4j, selection: "a").attempts == 4)
        #expect(try Importer.importPolicy(Self.file(text), from: .resilience4j, selection: "configs.default").attempts == 4)
        let configsOnly = "resilience4j:\n  retry:\n    configs:\n      default: {maxAttempts: 6}\n      slow: {maxAttempts: 2}\n"
        #expect(try Importer.importPolicy(Self.file(configsOnly), from: .resilience4j).attempts == 6)
    }
}
