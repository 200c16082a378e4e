import ChildProcessSupport
import Foundation
import Testing

/// `retry-policy request` runs the separate `retry-policy-request`
/// executable, so that `retry-policy` links no networking code.
@Suite("retry-policy request runs retry-policy-request")
struct RequestDispatchTests {
    /// `retry-policy-request` beside `retry-policy`.
    static var requestBinary: URL {
        CLI.binary.deletingLastPathComponent().appendingPathComponent("retry-policy-request")
    }

    /// Module names as they appear in the mangled symbols and metadata of a
    /// binary that links the module, and BoringSSL's symbol prefix.
    static let networkingMarkers = ["7NIOCore", "8NIOPosix", "15AsyncHTTPClient", "11PostgresNIO", "CNIOBoringSSL"]

    static func markers(in binary: URL) throws -> [String] {
        let bytes = try Data(contentsOf: binary)
        return networkingMarkers.filter { bytes.range(of: Data($0.utf8)) != nil }
    }

    @Test("retry-policy contains no NIO, AsyncHTTPClient, BoringSSL or PostgresNIO code; retry-policy-request does")
    func lintBinaryLinksNoNetworking() throws {
        #expect(try Self.markers(in: CLI.binary) == [])
        // The same scan finds every marker where the modules are linked, so
        // the empty list above is not an artefact of the scan.
        #expect(try Self.markers(in: Self.requestBinary) == Self.networkingMarkers)
    }

    @Test("without retry-policy-request next to it or on PATH, request exits 2 and says how to build it")
    func missingExecutable() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("retry-policy-alone-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alone = directory.appendingPathComponent("retry-policy")
        try FileManager.default.copyItem(at: CLI.binary, to: alone)
        let process = Process()
        process.executableURL = alone
        process.arguments = ["request", "http://127.0.0.1:9/", "--policy", "policies/tmdb.yaml"]
        process.environment = ["PATH": directory.path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = Pipe()
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.waitForExit() == 2)
        #expect(stderr.contains("needs the retry-policy-request executable"), "\(stderr)")
        #expect(stderr.contains("swift build -c release --product retry-policy-request"), "\(stderr)")
    }

    @Test("request hands its arguments and exit status over: a usage error of the request is exit 2")
    func forwardsArgumentsAndStatus() throws {
        let result = try CLI.run(["request", "http://127.0.0.1:9/", "--policy", "policies/tmdb.yaml", "--state-key", "k"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("--state-key and --init-state need --state"), "\(result)")
    }
}
