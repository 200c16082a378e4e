import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyYAML
import Testing

/// The real retry configurations of `../shared/interop-real` (copied from
/// public repositories, read from there, never from the project): each is
/// imported or refused as its own consumer reads it, and every policy
/// imported from them lints with no error.
@Suite("Real retry configurations")
struct RealConfigurationTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/interop-real")

    /// What each file gives: the number of retry configurations imported
    /// from it (every candidate, as `import --output DIR` writes them), or
    /// the ids it is refused with. Every file of the directory is listed.
    enum Outcome: Equatable {
        case imports(Int)
        case refused(Set<String>)
        /// Candidates of which some import and some are refused (AWS
        /// profiles with invalid values).
        case partly(imports: Int, refused: Set<String>)
    }

    static let expected: [String: (InteropFormat, Outcome)] = [
        // grpcio decides: the refused ones are those grpcio rejects (GRPCConsumerAgreementTests).
        "grpc/bluekaki-pkg_vv_configs_dns_choice.json": (.grpc, .refused(["RPI03"])),  // ".01s": C core rejects it
        "grpc/googleapis_bigtable_admin_v2_bigtableadmin.json": (.grpc, .imports(8)),
        "grpc/googleapis_bigtable_v2_bigtable.json": (.grpc, .imports(8)),
        "grpc/googleapis_cloud_bigquery_v2_bigquery.json": (.grpc, .imports(2)),
        "grpc/googleapis_cloud_certificatemanager_v1_certificatemanager.json": (.grpc, .imports(2)),
        "grpc/googleapis_cloud_ces_v1_ces.json": (.grpc, .refused(["RPI01", "RPI03"])),
        "grpc/googleapis_cloud_documentai_v1_documentai_v1.json": (.grpc, .imports(2)),
        "grpc/googleapis_cloud_osconfig_agentendpoint_v1_agentendpoint.json": (.grpc, .imports(2)),
        "grpc/googleapis_cloud_pubsublite_v1_pubsublite.json": (.grpc, .imports(1)),
        "grpc/googleapis_cloud_secretmanager_v1_secretmanager.json": (.grpc, .imports(2)),
        "grpc/googleapis_cloud_speech_v2_speech.json": (.grpc, .refused(["RPI01"])),
        "grpc/googleapis_cloud_tpu_v2_tpu.json": (.grpc, .refused(["RPI05"])),
        "grpc/googleapis_devtools_cloudtrace_v1_cloudtrace.json": (.grpc, .refused(["RPI01"])),
        "grpc/googleapis_example_library_v1_library.json": (.grpc, .refused(["RPI03"])),
        "grpc/googleapis_firestore_v1_firestore.json": (.grpc, .imports(7)),
        "grpc/googleapis_longrunning_longrunning.json": (.grpc, .imports(1)),
        "grpc/googleapis_pubsub_v1_pubsub.json": (.grpc, .imports(8)),
        "grpc/googleapis_spanner_executor_v1_spanner_cloud_executor.json": (.grpc, .refused(["RPI05"])),
        "grpc/googleapis_spanner_v1_spanner.json": (.grpc, .refused(["RPI01"])),
        "grpc/grpc-go_examples_features_retry_client.json": (.grpc, .refused(["RPI01"])),  // PascalCase keys
        "grpc/grpc-go_test_retry_alreadyexists.json": (.grpc, .refused(["RPI01"])),
        "grpc/grpc-go_test_retry_throttling.json": (.grpc, .refused(["RPI01"])),
        "grpc/grpc-java_core_test_hedging_service_config.json": (.grpc, .imports(3)),
        "grpc/grpc-java_core_test_retry_service_config.json": (.grpc, .imports(3)),
        "grpc/grpc-java_examples_hedging_service_config.json": (.grpc, .imports(1)),
        "grpc/grpc-java_examples_retrying_service_config.json": (.grpc, .imports(1)),

        "envoy/envoy-docs_cluster_circuit_breakers_retry_budget.yaml": (.envoy, .refused(["RPI04"])),  // a fragment: circuit_breakers is empty, thresholds beside it
        "envoy/envoy-docs_faq_transient_failures_request_retry.yaml": (.envoy, .imports(1)),
        "envoy/envoy-gateway_xds-ir_circuit-breaker_clusters.yaml": (.envoy, .imports(1)),  // a cluster's retry budget, no routes
        "envoy/envoy-gateway_xds-ir_ext-auth-retry_listeners.yaml": (.envoy, .refused(["RPI05"])),  // ext_authz's RetryPolicy only
        "envoy/envoy-gateway_xds-ir_retry-partial-invalid_routes.yaml": (.envoy, .imports(2)),
        "envoy/envoy-gateway_xds-ir_retry_routes.yaml": (.envoy, .imports(3)),
        "envoy/istio_istioctl_configdump_gateway_route_prefix.yaml": (.envoy, .imports(1)),
        "envoy/kuma_meshretry_grpc_listeners_golden.yaml": (.envoy, .imports(1)),
        "envoy/kuma_meshretry_http_listeners_golden.yaml": (.envoy, .imports(1)),
        "envoy/learnenvoy_automatic_retries_v1_snippet.yaml": (.envoy, .refused(["RPI03"])),  // v1 API field
        "envoy/oneuptime-blog_envoy_rate_limited_retries.yaml": (.envoy, .imports(1)),
        "envoy/oneuptime-blog_envoy_retry_conditions.yaml": (.envoy, .imports(1)),
        "envoy/oneuptime-blog_envoy_retry_host_selection.yaml": (.envoy, .imports(1)),

        "istio/h31nha_istio-retry-test_vs-b.yaml": (.istio, .imports(1)),
        "istio/istio-api_virtual_service_proto_HTTPRetry_example.yaml": (.istio, .imports(1)),
        "istio/istio-tutorial_virtual-service-no-retries.yaml": (.istio, .imports(3)),
        "istio/istio-tutorial_virtual-service-recommendation-v2_retry.yaml": (.istio, .imports(1)),
        "istio/istio_pilot_gateway_testdata_http_golden_retry_vs.yaml": (.istio, .imports(3)),
        "istio/jmetzger_training-istio_07-retries_flaky-server_vs.yaml": (.istio, .imports(1)),
        "istio/openliberty_guide-istio-retry-fallback_traffic_inventory_vs.yaml": (.istio, .imports(1)),
        "istio/panthuya_istio-retry-lab_fault-injection_grpc-codes.yaml": (.istio, .imports(1)),
        "istio/resskim-blog_istio-part4_payment-service_vs.yaml": (.istio, .imports(2)),
        "istio/resskim-blog_istio-part4_retriableStatusCodes_fragment.yaml": (.istio, .refused(["RPI03"])),  // not an HTTPRetry field
        "istio/sumangcodes_istio-retry-simulation_service-1_vs.yaml": (.istio, .imports(1)),
        "istio/voteva_istio-retry-demo_retry-endpoint_vs.yaml": (.istio, .imports(3)),

        "resilience4j/chunpingwang_resilience4j-poc_application.yaml": (.resilience4j, .imports(3)),
        "resilience4j/dowenliu_resilience4j-plays_issue2097_application.yaml": (.resilience4j, .imports(2)),
        "resilience4j/dowenliu_resilience4j-plays_play03-openfeign_application.yaml": (.resilience4j, .imports(1)),
        "resilience4j/emman2582_resilience4j-sample_service-a_application.yaml": (.resilience4j, .imports(1)),
        "resilience4j/horikitas_resilience4j-reactive-demo_application.yaml": (.resilience4j, .imports(2)),
        "resilience4j/marcosalbano_resilience4j-samples_application-payment-example.yaml": (.resilience4j, .imports(1)),
        "resilience4j/marcosalbano_resilience4j-samples_application-retry.yaml": (.resilience4j, .imports(4)),
        "resilience4j/resilience4j-spring-boot3-demo_application.yaml": (.resilience4j, .imports(3)),
        "resilience4j/resilience4j_commons-configuration_test_resilience.yaml": (.resilience4j, .imports(3)),
        "resilience4j/resilience4j_spring-boot3_test_application.yaml": (.resilience4j, .imports(6)),
        "resilience4j/thombergs_code-examples_springboot-resilience4j_application.yaml": (.resilience4j, .imports(8)),

        // The SDK fixture holds profiles named DONOTNORMALIZE, DoNotNormalize
        // and donotnormalize: one file name on a case-insensitive file
        // system, so writing every profile is refused with their names
        // (each still imports with --select).
        "aws/aws-sdk-go-v2_config_testdata_shared_config.ini": (.awsConfig, .refused(["RPI07"])),
        "aws/aws-sdk-php_tests_retry_ConfigurationProviderTest_altIniFile.ini": (.awsConfig, .imports(2)),
        "aws/aws-sdk-php_tests_retry_ConfigurationProviderTest_iniFile.ini": (.awsConfig, .imports(2)),
        "aws/aws-sdk-ruby_spec_fixtures_mock_shared_config.ini": (.awsConfig, .imports(61)),
        "aws/awsdocs_aws-cli-user-guide_cli-configure-files_max_attempts_sectionless.ini": (.awsConfig, .refused(["RPI03"])),  // no section
        "aws/awsdocs_aws-cli-user-guide_cli-configure-retries_example.ini": (.awsConfig, .imports(1)),
        "aws/boto3_docs_guide_retries_myConfigProfile.ini": (.awsConfig, .imports(1)),
        "aws/smithy-rs_aws-config_profile_retry_config_doc_profile_other.ini": (.awsConfig, .imports(1)),
    ]

    static func read(_ relative: String) throws -> ForeignFile {
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(relative)))
        return ForeignFile(bytes: bytes, path: relative)
    }

    /// Every configuration file of the directory (not its README and
    /// SOURCES.tsv).
    static func files() throws -> [String] {
        var result: [String] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            var isDirectory: ObjCBool = false
            let path = directory.appendingPathComponent(folder).path
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: path) { result.append(folder + "/" + name) }
        }
        return result.sorted()
    }

    static func outcome(of file: ForeignFile, as format: InteropFormat) -> (Outcome, [ImportedPolicy]) {
        do {
            let (policies, errors) = try Importer.importEvery(file, from: format)
            if errors.isEmpty { return (.imports(policies.count), policies) }
            let ids = Set(errors.compactMap(\.id))
            return (policies.isEmpty ? .refused(ids) : .partly(imports: policies.count, refused: ids), policies)
        } catch {
            return (.refused(Set(error.diagnostics.compactMap(\.id))), [])
        }
    }

    @Test("the directory holds exactly the listed files")
    func everyFileIsListed() throws {
        #expect(FileManager.default.fileExists(atPath: Self.directory.path),
                "\(Self.directory.path) is missing: the tests read the real configurations from ../shared/interop-real")
        #expect(Set(try Self.files()) == Set(Self.expected.keys))
    }

    @Test("each file is imported or refused as its consumer reads it", arguments: Self.expected.keys.sorted())
    func importsAsTheConsumer(relative: String) throws {
        let (format, expected) = Self.expected[relative]!
        let file = try Self.read(relative)
        let (outcome, policies) = Self.outcome(of: file, as: format)
        #expect(outcome == expected, "\(relative)")
        // Every refusal is located in the file, with a line and column.
        if case .refused = outcome {
            do {
                _ = try Importer.importEvery(file, from: format)
            } catch {
                for diagnostic in error.diagnostics {
                    #expect(diagnostic.location.file == relative && diagnostic.location.line >= 1 && diagnostic.location.column >= 1)
                }
            }
        }
        // Every imported policy loads back from its YAML, equal to the
        // import, and lints with no error.
        let run = LintRun(root: .wholeFileSystem())
        for imported in policies {
            let reloaded = try loadPolicy(policyFile(imported), path: imported.name + ".yaml")
            #expect(PolicyDiff.compare(reloaded, imported.policy).isIdentical, "\(relative): \(imported.name)")
            let errors = try run.lint(bytes: Array(policyFile(imported).utf8), path: imported.name + ".yaml").filter { $0.severity == .error }
            #expect(errors.isEmpty, "\(relative): \(imported.name): \(errors)")
        }
    }

    @Test("gRPC's own implementation (grpcio) accepts exactly the gRPC files that are not refused as invalid")
    func grpcioJudgesTheRealFiles() throws {
        guard GRPCValidationTests.python() != nil else {
            Issue.record("python3 with grpcio is needed: the real gRPC files are judged by gRPC itself")
            return
        }
        let names = Self.expected.keys.filter { Self.expected[$0]!.0 == .grpc }.sorted()
        let texts = try names.map { String(decoding: try Self.read($0).bytes, as: UTF8.self) }
        let verdicts = try GRPCValidationTests.validate(texts)
        try #require(verdicts.count == names.count)
        for (name, verdict) in zip(names, verdicts) {
            let (outcome, _) = Self.outcome(of: try Self.read(name), as: .grpc)
            let invalid: Bool
            if case .refused(let ids) = outcome { invalid = !ids.isDisjoint(with: ["RPI01", "RPI02", "RPI03"]) } else { invalid = false }
            #expect(invalid == verdict.hasPrefix("rejected"), "\(name): grpcio says \(verdict); import gives \(outcome)")
        }
    }
}
