import Foundation
import Testing

/// `retry-policy lint` in a real repository: only policies are linted
/// when a directory is walked, the rest is counted, and finding nothing
/// fails.
@Suite("retry-policy lint discovery", .serialized)
struct LintDiscoveryTests {
    static let compose = """
        version: "3.8"
        name: shop
        services:
          web:
            image: nginx:1.27
            ports: ["8080:80"]
            restart: always

        """

    static let deployment = """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          replicas: 2
        ---
        apiVersion: v1
        kind: Service
        metadata:
          name: web
        spec:
          ports:
            - port: 80

        """

    static let workflow = """
        name: CI
        on: [push, pull_request]
        jobs:
          build:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - run: retry-policy lint

        """

    static let openAPI = """
        openapi: 3.1.0
        info:
          title: Shop
          version: 1.0.0
        paths:
          /items:
            get:
              responses:
                "200": {description: ok}

        """

    static let helmValues = """
        replicaCount: 2
        image:
          repository: nginx
          tag: "1.27"
        timeouts:
          read: 5s
        retries: 3

        """

    static let testsFile = """
        policy: clean.yaml
        cases:
          - {name: unavailable, status: 503, expect: {action: retry}}

        """

    /// A repository as a new user has it: two policies, a tests file and
    /// other tools' YAML.
    static func repository(_ extra: [String: String] = [:]) throws -> Workspace {
        var files = [
            "docker-compose.yml": compose,
            "deploy/web.yaml": deployment,
            "deploy/service.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {version: \"1\"}\n",
            ".github/workflows/ci.yml": workflow,
            "api/openapi.yaml": openAPI,
            "charts/web/values.yaml": helmValues,
            "policies/clean.yaml": PolicyTexts.clean,
            "services/twin.yml": PolicyTexts.cleanTwin,
            "policies/clean.tests.yaml": testsFile,
        ]
        for (path, text) in extra { files[path] = text }
        return try Workspace(files)
    }

    @Test("lint with no path, and lint ., lint only the policies and count what they skip")
    func walksARepository() throws {
        let workspace = try Self.repository()
        for arguments in [["lint"], ["lint", "."]] {
            let result = try workspace.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(result.stdout == "0 errors, 0 warnings, 0 notes in 2 files; skipped 5 YAML files that are not policies\n",
                    "\(arguments): \(result)")
            #expect(result.stderr.isEmpty, "\(result)")
        }
        let json = try workspace.run(["lint", "--format", "json"])
        #expect(json.status == 0, "\(json)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["files"] as? [String] == ["policies/clean.yaml", "services/twin.yml"], "\(json)")
        let skipped = try #require(object["skipped"] as? [String: Int])
        #expect(skipped == ["not_policies": 5, "tests_files": 1, "excluded": 0], "\(json)")

        let sarif = try workspace.run(["lint", "--format", "sarif", "."])
        #expect(sarif.status == 0, "\(sarif)")
        #expect(sarif.stdout.contains("\"skippedNotPolicies\": 5") && sarif.stdout.contains("\"skippedTestsFiles\": 1"), "\(sarif)")
    }

    @Test("a YAML file too large to read whole is judged by its beginning: other YAML is skipped, a policy is its size error")
    func largeFiles() throws {
        let filler = String(repeating: "  - {description: padding padding padding padding}\n", count: 30_000)
        let workspace = try Self.repository([
            "api/huge-openapi.yaml": "openapi: 3.1.0\ninfo: {title: big, version: 1.0.0}\nx-list:\n" + filler,
            "policies/huge.yaml": "version: 1\nname: huge\nattempts: 2\nrules:\n" + filler,
        ])
        let result = try workspace.run(["lint"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("policies/huge.yaml:1:1: error: expected a policy file of at most 1048576 bytes, found a larger file [RP003]"), "\(result)")
        #expect(!result.stdout.contains("huge-openapi"), "\(result)")
        #expect(result.stdout.hasSuffix("in 3 files; skipped 6 YAML files that are not policies\n"), "\(result)")
    }

    @Test("a broken policy found by the walk is still linted: its keys say it is one")
    func brokenPolicyIsFound() throws {
        let workspace = try Self.repository([
            "policies/typo.yaml": "version: 1\nname: typo\nattemps: 3\nrules: [\n",
            "policies/no-version.yaml": "name: nv\nattempts: 2\ndefault: {error: internal_error, action: stop}\n",
        ])
        let result = try workspace.run(["lint"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("policies/typo.yaml:"), "\(result)")
        #expect(result.stdout.contains("policies/no-version.yaml:"), "\(result)")
        #expect(result.stdout.hasSuffix("in 4 files; skipped 5 YAML files that are not policies\n"), "\(result)")
    }

    @Test("a file naming the policy schema in a modeline is a policy")
    func modeline() throws {
        let workspace = try Workspace([
            "p.yaml": "# yaml-language-server: $schema=../schema/retry-policy.schema.json\nversion: 1\nname: p\nbogus: 1\n",
            "t.yaml": "# yaml-language-server: $schema=https://example.com/retry-policy-tests.schema.json\npolicy: p.yaml\n",
        ])
        let result = try workspace.run(["lint"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("p.yaml:4:1: error: unknown key 'bogus'"), "\(result)")
        #expect(result.stdout.hasSuffix(" in 1 file\n"), "the tests file is skipped: \(result)")
        let json = try workspace.run(["lint", "--format", "json"])
        #expect(json.stdout.contains("\"tests_files\": 1"), "\(json)")
    }

    @Test("nothing to lint is exit 2 with what was searched")
    func nothingFound() throws {
        let empty = try Workspace([:])
        let none = try empty.run(["lint"])
        #expect(none.status == 2, "\(none)")
        #expect(none.stdout.isEmpty, "\(none)")
        #expect(none.stderr == "error: no policy files found in . (searched 0 YAML files); name the files, or set include: in .retry-policy.yaml\n", "\(none)")

        let others = try Workspace([
            "docker-compose.yml": Self.compose, "k8s/web.yaml": Self.deployment, "x.tests.yaml": Self.testsFile,
        ])
        let result = try others.run(["lint", "k8s", "."])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr == "error: no policy files found in k8s, . (searched 3 YAML files; skipped 2 YAML files that are not policies, 1 tests file); name the files, or set include: in .retry-policy.yaml\n", "\(result)")
    }

    @Test("the searched paths are escaped in the nothing-found message")
    func nothingFoundEscapesPaths() throws {
        let name = "::error::x\u{1B}[2J"
        let workspace = try Workspace(["\(name)/a.yaml": Self.compose])
        let result = try workspace.run(["lint", name])
        #expect(result.status == 2, "\(result)")
        #expect(!result.stderr.contains("\u{1B}"), "\(result)")
        #expect(result.stderr.contains(#"no policy files found in :\u{3A}error::x\u{1B}[2J (searched 1 YAML file"#), "\(result)")
    }

    @Test("a tests file named on the command line is one clear located error, exit 1")
    func testsFileNamed() throws {
        let workspace = try Self.repository()
        let result = try workspace.run(["lint", "policies/clean.tests.yaml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.hasPrefix("policies/clean.tests.yaml:1:1: error: this is a tests file: run `retry-policy test policies/clean.tests.yaml` [RP024]\n"), "\(result)")
        #expect(result.stdout.hasSuffix("1 error, 0 warnings, 0 notes in 1 file\n"), "\(result)")
    }

    @Test("a file named on the command line is linted as a policy, whatever it holds")
    func namedFileIsAPolicy() throws {
        let workspace = try Self.repository()
        let result = try workspace.run(["lint", "docker-compose.yml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("docker-compose.yml:3:1: error: unknown key 'services'"), "\(result)")
    }

    @Test("include: narrows the walk and exclude: drops files, relative to the settings file")
    func includeAndExclude() throws {
        let broken = "version: 1\nname: broken\nattempts: 2\nbogus: 1\n"
        let workspace = try Self.repository(["vendor/lib/broken.yaml": broken, "services/old/broken.yaml": broken])
        let unfiltered = try workspace.run(["lint"])
        #expect(unfiltered.status == 1, "\(unfiltered)")

        try workspace.write(".retry-policy.yaml", "exclude: [vendor, \"services/*/broken.yaml\"]\n")
        let excluded = try workspace.run(["lint"])
        #expect(excluded.status == 0, "\(excluded)")
        #expect(excluded.stdout == "0 errors, 0 warnings, 0 notes in 2 files; skipped 5 YAML files that are not policies, 2 excluded by settings\n", "\(excluded)")

        try workspace.write(".retry-policy.yaml", "include: [\"policies/**\"]\n")
        let included = try workspace.run(["lint", "--format", "json"])
        #expect(included.status == 0, "\(included)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(included.stdout.utf8)) as? [String: Any])
        #expect(object["files"] as? [String] == ["policies/clean.yaml"], "\(included)")

        // Run from a subfolder: the patterns stay relative to the settings file.
        try workspace.write(".retry-policy.yaml", "include: [\"**/twin.yml\"]\n")
        let fromServices = try CLI.run(["lint", "--root", "..", "."], in: workspace.url.appendingPathComponent("services"))
        #expect(fromServices.status == 0, "\(fromServices)")
        #expect(fromServices.stdout == "0 errors, 0 warnings, 0 notes in 1 file; skipped 1 excluded by settings\n", "\(fromServices)")
        let fromTop = try workspace.run(["lint", "--format", "json", "services"])
        let top = try #require(try JSONSerialization.jsonObject(with: Data(fromTop.stdout.utf8)) as? [String: Any])
        #expect(top["files"] as? [String] == ["services/twin.yml"], "\(fromTop)")

        // A named file is linted whatever the patterns say.
        try workspace.write(".retry-policy.yaml", "exclude: [vendor]\n")
        let named = try workspace.run(["lint", "vendor/lib/broken.yaml"])
        #expect(named.status == 1 && named.stdout.contains("vendor/lib/broken.yaml:4:1: error: unknown key 'bogus'"), "\(named)")

        // Excluding everything is the nothing-found error.
        try workspace.write(".retry-policy.yaml", "exclude: [\"**\"]\n")
        let all = try workspace.run(["lint"])
        #expect(all.status == 2 && all.stderr.contains("no policy files found in . (searched 10 YAML files; skipped 10 excluded by settings)"), "\(all)")
    }

    @Test("an unknown settings key and a bad pattern are located errors, exit 2")
    func badSettings() throws {
        let workspace = try Self.repository()
        try workspace.write(".retry-policy.yaml", "includes: [policies]\n")
        let unknown = try workspace.run(["lint"])
        #expect(unknown.status == 2, "\(unknown)")
        #expect(unknown.stderr.contains(".retry-policy.yaml:1:1: error: unknown key 'includes'; expected one of: rules, include, exclude"), "\(unknown)")

        try workspace.write(".retry-policy.yaml", "include:\n  - policies\n  - \"src/[ab]/*.yaml\"\nexclude:\n  - ../up\n  - \"{a,b}\"\n  - 3\n")
        let bad = try workspace.run(["lint"])
        #expect(bad.status == 2, "\(bad)")
        #expect(bad.stderr.contains(".retry-policy.yaml:3:5: error: invalid pattern in 'include': '[' is not supported"), "\(bad)")
        #expect(bad.stderr.contains(".retry-policy.yaml:5:5: error: invalid pattern in 'exclude': '..' in '../up' leaves"), "\(bad)")
        #expect(bad.stderr.contains(".retry-policy.yaml:6:5: error: invalid pattern in 'exclude': '{' is not supported"), "\(bad)")
        #expect(bad.stderr.contains(".retry-policy.yaml:7:5: error: exclude[2]: expected a path pattern (a string), found the integer 3"), "\(bad)")

        try workspace.write(".retry-policy.yaml", "exclude: vendor\n")
        let scalar = try workspace.run(["lint"])
        #expect(scalar.status == 2 && scalar.stderr.contains(".retry-policy.yaml:1:10: error: exclude: expected a list of path patterns"), "\(scalar)")
    }
}
