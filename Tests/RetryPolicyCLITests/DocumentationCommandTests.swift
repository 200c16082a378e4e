import Foundation
import Testing

/// Every `$ retry-policy ...` (or `$ swift run retry-policy ...`) command
/// shown in the README and the docs runs here, from the package root, and
/// must print exactly what the docs show (and end with the
/// `[exit status N]` they show, 0 when none is shown).
///
/// `request` examples need a server and are run by `RequestCommandTests`;
/// a command with a trailing `# comment` is an illustration of a situation
/// the tests build elsewhere (named in the comment).
///
/// `UPDATE_DOCUMENTATION=1 swift test --no-parallel --filter DocumentationCommandTests`
/// rewrites the documented output from the real one.
@Suite("Documented commands print what the docs say")
struct DocumentationCommandTests {
    static let documents = [
        "README.md", "docs/cli.md", "docs/executor.md", "docs/policy-files.md", "docs/interop.md", "docs/replay.md",
        "docs/tour.md", "docs/embedding.md", "docs/installation.md", "docs/fleet.md",
    ]

    struct Example: CustomTestStringConvertible, Sendable {
        var document: String
        var line: Int
        var command: String
        var output: String
        var status: Int32
        /// The range of the documented output (and status line) in the file.
        var outputRange: Range<Int>

        var testDescription: String { "\(document):\(line): \(command)" }
    }

    static func examples(in document: String) -> [Example] {
        guard let text = try? String(contentsOf: CLI.packageRoot.appendingPathComponent(document), encoding: .utf8) else {
            return []
        }
        var examples: [Example] = []
        var offset = 0
        var lineNumber = 1
        var inConsole = false
        var current: (line: Int, command: String, start: Int)?
        var outputLines: [String] = []
        var outputEnd = 0
        func finish() {
            guard let open = current else { return }
            var status: Int32 = 0
            var lines = outputLines
            if let last = lines.last, last.hasPrefix("[exit status "), last.hasSuffix("]") {
                status = Int32(last.dropFirst("[exit status ".count).dropLast()) ?? -1
                lines.removeLast()
            }
            var command = open.command
            // `swift run retry-policy ARGS` prints what `retry-policy ARGS`
            // prints (SwiftPM's build progress goes to standard error first).
            if command.hasPrefix("swift run retry-policy ") { command.removeFirst("swift run ".count) }
            let runnable = command.hasPrefix("retry-policy ") && !command.hasPrefix("retry-policy request ") && !command.contains("#")
            if runnable {
                examples.append(Example(
                    document: document, line: open.line, command: command,
                    output: lines.map { $0 + "\n" }.joined(), status: status, outputRange: open.start..<outputEnd))
            }
            current = nil
            outputLines = []
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            let lineLength = line.utf8.count + 1
            defer {
                offset += lineLength
                lineNumber += 1
            }
            if !inConsole {
                if line == "```console" { inConsole = true }
                continue
            }
            if line == "```" {
                finish()
                inConsole = false
                continue
            }
            if line.hasPrefix("$ ") {
                finish()
                current = (lineNumber, String(line.dropFirst(2)), offset + lineLength)
                outputEnd = offset + lineLength
                continue
            }
            if current != nil {
                outputLines.append(line)
                outputEnd = offset + lineLength
            }
        }
        return examples
    }

    static let all: [Example] = documents.flatMap(examples(in:))

    /// Splits a documented command line into arguments (no shell features
    /// beyond single and double quotes).
    static func arguments(_ command: String) -> [String] {
        var result: [String] = []
        var current = ""
        var quote: Character?
        var started = false
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                started = true
            } else if character == " " {
                if started || !current.isEmpty { result.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
            }
        }
        if started || !current.isEmpty { result.append(current) }
        return Array(result.dropFirst())  // "retry-policy"
    }

    @Test("there are documented commands to check")
    func found() {
        #expect(Self.all.count >= 25, "\(Self.all.count) documented commands")
    }

    @Test("each documented command prints the documented output", arguments: all)
    func documented(_ example: Example) throws {
        var arguments = Self.arguments(example.command)
        // A file the command writes goes to a scratch place, not into docs/;
        // inside the package, since files are written only inside the root.
        let scratch = CLI.packageRoot.appendingPathComponent(".build/doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        for option in ["--svg", "--output"] {
            if let index = arguments.firstIndex(of: option), index + 1 < arguments.count {
                arguments[index + 1] = scratch.appendingPathComponent(URL(fileURLWithPath: arguments[index + 1]).lastPathComponent).path
            }
        }
        let result = try CLI.run(arguments, in: CLI.packageRoot, environment: ["NO_COLOR": "1"])
        let actual = result.stdout + result.stderr
        if ProcessInfo.processInfo.environment["UPDATE_DOCUMENTATION"] == "1",
            actual != example.output || result.status != example.status
        {
            try Self.rewrite(example, output: actual, status: result.status)
            return
        }
        #expect(actual == example.output, "\(example.document):\(example.line): \(example.command)\n\(result)")
        #expect(result.status == example.status, "\(example.document):\(example.line): \(example.command)")
    }

    /// Rewrites one example's output in place; examples are rewritten one
    /// at a time, so the ranges of the others are found again by command.
    static func rewrite(_ example: Example, output: String, status: Int32) throws {
        let url = CLI.packageRoot.appendingPathComponent(example.document)
        var text = try String(contentsOf: url, encoding: .utf8)
        guard let fresh = examples(in: example.document).first(where: { $0.command == example.command && $0.output == example.output })
        else { return }
        var bytes = Array(text.utf8)
        let replacement = output + (status == 0 ? "" : "[exit status \(status)]\n")
        bytes.replaceSubrange(fresh.outputRange, with: Array(replacement.utf8))
        text = String(decoding: bytes, as: UTF8.self)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}
