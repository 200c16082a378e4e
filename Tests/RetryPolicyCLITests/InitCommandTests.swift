import Foundation
import Testing

@Suite("retry-policy init")
struct InitCommandTests {
    @Test("writes a policy that lints clean under --strict, validates against the schema, and tests that pass")
    func starter() throws {
        let workspace = try Workspace([:])
        let written = try workspace.run(["init", "orders-api", "--directory", "policies"])
        #expect(written.status == 0, "\(written)")
        #expect(written.stdout.hasPrefix("wrote policies/orders-api.yaml\nwrote policies/orders-api.tests.yaml\n"))
        let lint = try workspace.run(["lint", "--strict", "policies"])
        #expect(lint.status == 0 && lint.stdout == "0 errors, 0 warnings, 0 notes in 1 file\n", "\(lint)")
        let test = try workspace.run(["test", "policies"])
        #expect(test.status == 0 && test.stdout.contains(": 9 passed, 0 failed"), "\(test)")
        let schema = CLI.packageRoot.appendingPathComponent("schema/validate.py").path
        let validated = try python(
            "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
            arguments: [schema, workspace.path("policies/orders-api.yaml"), workspace.path("policies/orders-api.tests.yaml")])
        #expect(validated.status == 0, "\(validated.output)")
    }

    @Test("never overwrites without --force; a bad name is a usage error")
    func refusals() throws {
        let workspace = try Workspace(["svc.yaml": "version: 1\nname: mine\n"])
        let again = try workspace.run(["init", "svc"])
        #expect(again.status == 2 && again.stderr.contains("./svc.yaml: exists; pass --force to replace it"), "\(again)")
        #expect(try String(contentsOfFile: workspace.path("svc.yaml"), encoding: .utf8) == "version: 1\nname: mine\n")
        let forced = try workspace.run(["init", "svc", "--force"])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: workspace.path("svc.yaml"), encoding: .utf8).contains("name: svc\n"))
        for bad in ["Svc", "svc_api", "-svc", "svc api"] {
            let result = try workspace.run(["init", bad])
            #expect(result.status == 2, "\(bad): \(result)")
        }
    }
}
