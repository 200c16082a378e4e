import Foundation
import Testing

/// `retry-policy replay` on a pull request's recordings: they are read
/// through the root as policies are, only regular files are read, and
/// nothing they hold reaches the terminal raw.
@Suite("replay reads recordings only inside the root")
struct ReplayUntrustedInputTests {
    static let recording = #"{"time": 1763388000, "endpoint": "/v1/search", "status": 200, "duration_ms": 20}"# + "\n"

    /// The checkout of ``UntrustedInputTests`` with a policy and one
    /// readable recording in it.
    static func checkout() throws -> UntrustedInputTests.Checkout {
        let checkout = try UntrustedInputTests.Checkout()
        try checkout.write("single.yaml", ReplayCommandTests.single)
        try checkout.write("traffic.jsonl", Self.recording)
        // What a recording leading outside would read, were it read.
        try (Self.recording + "{\"time\": 1763388001, \"endpoint\": \"/\(UntrustedInputTests.fileSecret)\", \"status\": 200}\n")
            .write(to: checkout.outer.appendingPathComponent("outside.jsonl"), atomically: true, encoding: .utf8)
        return checkout
    }

    @Test("a recording outside the root, in .git or on /proc is refused with status 2 before it is read", arguments: [
        "/etc/passwd", "../outside.jsonl", "../../outside.jsonl", "/proc/self/environ", ".git/config", "/dev/zero",
        "link-out.jsonl", "link-proc.log", "ABSOLUTE",
    ])
    func outsideTheRoot(path: String) throws {
        let checkout = try Self.checkout()
        try checkout.link("link-out.jsonl", to: "../outside.jsonl")
        try checkout.link("link-proc.log", to: "/proc/self/environ")
        let named = path == "ABSOLUTE" ? checkout.outer.appendingPathComponent("outside.jsonl").path : path
        for format in [[], ["--format", "jsonl"]] {
            let result = try checkout.run(["replay", "--policy", "single.yaml", "traffic.jsonl", named] + format)
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains("error: \(named): "), "\(result)")
            #expect(result.stdout.isEmpty)
            UntrustedInputTests.expectNoSecrets(result)
        }
    }

    @Test("a FIFO, or a link to /dev/zero named with --format, is refused before it is read")
    func specialFiles() throws {
        let checkout = try Self.checkout()
        #expect(mkfifo(checkout.repo.appendingPathComponent("pipe.jsonl").path, 0o600) == 0)
        try checkout.link("zero.log", to: "/dev/zero")
        for (path, reason) in [("pipe.jsonl", "FIFO"), ("zero.log", "/dev/zero")] {
            for format in [[], ["--format", "nginx"]] {
                let result = try checkout.run(["replay", "--policy", "single.yaml", path] + format)
                #expect(result.status == 2, "\(result)")
                #expect(result.stderr.contains(path) && result.stderr.contains(reason), "\(result)")
            }
        }
    }

    @Test("inside the root, a recording is read by a relative or absolute path, through a link, or from standard input")
    func insideTheRoot() throws {
        let checkout = try Self.checkout()
        try FileManager.default.createDirectory(at: checkout.repo.appendingPathComponent("recordings"), withIntermediateDirectories: true)
        try checkout.write("recordings/b.jsonl", Self.recording)
        try checkout.link("recordings/link.jsonl", to: "b.jsonl")
        for path in ["traffic.jsonl", "recordings/../traffic.jsonl", checkout.repo.appendingPathComponent("traffic.jsonl").path, "recordings/link.jsonl"] {
            let result = try checkout.run(["replay", "--policy", "single.yaml", path, "--report", "json"])
            #expect(result.status == 0, "\(path): \(result)")
        }
        let piped = try CLI.run(["replay", "--policy", "single.yaml", "-"], in: checkout.repo, input: Self.recording)
        #expect(piped.status == 0, "\(piped)")
    }

    @Test("text from the recording and its name reach no output raw: no control character, no workflow command")
    func escaped() throws {
        let checkout = try Self.checkout()
        let name = "::error file=a,line=1::forged\u{1B}[31m\r\n##[warning]x.jsonl"
        let hostile = [
            #"{"time": 1763388000, "method": "GET", "endpoint": "/a\u001b[2J\r\n::error ::x", "status": 503, "headers": {"Retry-After": "\u001b]0;t\u0007"}}"#,
            "::error file=x::not a record",
            "\u{1B}[31mnot json\r",
            "{\"time\": \"\u{1B}[31m\"}",
        ].joined(separator: "\n") + "\n"
        try checkout.write(name, hostile)
        for report in ["human", "markdown", "json"] {
            let result = try checkout.run(["replay", "--policy", "single.yaml", name, "--report", report])
            #expect(result.status == 0, "\(result)")
            #expect(result.stderr.contains("warning"), "\(result)")
            for output in [result.stdout, result.stderr] {
                #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || (0x7F...0x9F).contains($0.value) }, "\(report): \(output.debugDescription)")
                for line in output.split(separator: "\n") {
                    #expect(!line.drop { $0 == " " || $0 == "\t" }.hasPrefix("::"), "\(report): \(line)")
                    #expect(!line.contains("##["), "\(report): \(line)")
                }
            }
        }
    }
}
