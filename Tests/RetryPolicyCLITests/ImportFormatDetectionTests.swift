import Foundation
import Testing

/// `import` without `--from` detects the format as `diff --against` does,
/// and a `--from` that the content contradicts names the detected format.
@Suite("retry-policy import detects the format")
struct ImportFormatDetectionTests {
    static let route = """
        name: local_route
        virtual_hosts:
        - name: backend
          domains: ["*"]
          routes:
          - match: {prefix: "/"}
            route:
              cluster: api
              timeout: 10s
              retry_policy: {retry_on: 5xx, num_retries: 2}

        """

    @Test("without --from an Envoy route is imported as Envoy")
    func detected() throws {
        let workspace = try Workspace(["route.yaml": Self.route])
        let result = try workspace.run(["import", "route.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("attempts: 3"), "\(result)")
    }

    @Test("--from grpc on an Envoy route is refused, naming Envoy")
    func contradicted() throws {
        let workspace = try Workspace(["route.yaml": Self.route])
        let result = try workspace.run(["import", "route.yaml", "--from", "grpc"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("route.yaml:1:1: error: expected a gRPC service config (--from grpc), found an Envoy route configuration [RPI04]"), "\(result)")
        #expect(result.stderr.contains("use --from envoy"), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test("an AWS config file needs --from, and says so")
    func undetectable() throws {
        let workspace = try Workspace(["config": "[default]\nretry_mode = standard\n"])
        let refused = try workspace.run(["import", "config"])
        #expect(refused.status == 1 && refused.stderr.contains("--from aws-config"), "\(refused)")
        let imported = try workspace.run(["import", "config", "--from", "aws-config"])
        #expect(imported.status == 0, "\(imported)")
    }
}
