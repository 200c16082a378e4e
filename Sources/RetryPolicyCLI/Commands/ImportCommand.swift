import ArgumentParser
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyYAML
import RetryPolicyCommandSupport

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write another layer's retry configuration as a policy file.",
        discussion: """
            Reads \(FieldReader.alternatives(InteropRegistry.handlers.map(\.importHelp))), and writes the \
            equivalent policy YAML with comments where a choice was made. Where a field is absent, the source format's \
            documented default applies (docs/interop.md).

            A file often holds several retry configurations: method configs, routes, instances, \
            profiles. --list prints them; --select NAME imports one (gRPC: SERVICE or SERVICE/METHOD, \
            looked up as gRPC does); --output DIR writes every one, each to DIR/NAME.yaml. Without \
            either, a file that holds several is refused with their names (an AWS file imports its \
            [default] profile). NAME keeps the letters, digits, '.', '_' and '-' of the name (no \
            leading dot, at most 128 characters); a name with none of them becomes the kind and \
            position (profile-2) with a warning, and two names that would share a file (ignoring \
            case) are an error naming both, with nothing written.

            Files are written inside the root, atomically, never through a symbolic link, and never \
            over an existing file unless --force is given (a link or a directory at the name is \
            never replaced).

            Settings the policy format cannot express are warnings on standard error, located in \
            the source file; --strict makes them errors. A file that breaks its own format's rules \
            (gRPC's validation, for example maxAttempts 1) is a located error.

            Exit status: 0 written; 1 the file is invalid, two names collide, or --strict and \
            something is lost; 2 usage or I/O error (a file exists, a link, a path outside the root).
            """)

    @Argument(help: "The configuration file (- reads it from standard input).")
    var file: String

    @Option(help: "The source format: \(InteropFormat.names(InteropFormat.allCases)) (default: detected from its content, as diff --against does).")
    var from: InteropFormat?

    @Option(help: ArgumentHelp(
        "Which retry configuration to import: \(InteropRegistry.handlers.map(\.selectionHelp).joined(separator: ", ")).",
        valueName: "name"))
    var select: String?

    @Option(help: ArgumentHelp(
        "Write the policy to this file instead of standard output; to an existing directory (or a path ending in /), write every retry configuration of the file, one policy each.",
        valueName: "path"))
    var output: String?

    @Flag(help: "List the file's retry configurations (name, line, summary) instead of importing.")
    var list = false

    @Flag(help: "Treat every setting that cannot be imported exactly as an error.")
    var strict = false

    @OptionGroup var writeOptions: WriteOptions

    @OptionGroup var rootOptions: RootOptions

    func run() throws {
        let root = try rootOptions.policyRoot()
        if file != "-", case .failure(let denial) = root.locate(file), denial.kind == .notFound {
            throw CommandFailure("\(DisplayText.escaped(file)): no such file")
        }
        let bytes: [UInt8]
        switch PolicyFiles.bytes(file, root: root) {
        case .success(let read): bytes = read
        case .failure(let error): throw CommandFailure(error.diagnostics.map { DisplayText.escaped($0.description) }.joined(separator: "\n"))
        }
        let foreign = ForeignFile(bytes: bytes, path: file == "-" ? "<stdin>" : file)
        let directory = output.flatMap { Self.directory($0, root: root) }
        let imports: [ImportedPolicy]
        var failures: [Diagnostic] = []
        do {
            let from = try Importer.format(of: foreign, given: from)
            if list {
                for candidate in try Importer.candidates(foreign, from: from) {
                    let aliases = candidate.aliases.isEmpty ? "" : " (also \(candidate.aliases.joined(separator: ", ")))"
                    // Every field, aliases included, is text of the file: one
                    // escaped line per candidate, tabs between fields kept.
                    let fields = [candidate.name + aliases, candidate.location.description, candidate.summary]
                    StandardOutput.write(fields.map { DisplayText.escaped($0, keepingTabs: false) }.joined(separator: "\t") + "\n")
                }
                return
            }
            if directory != nil && select == nil {
                (imports, failures) = try Importer.importEvery(foreign, from: from)
            } else {
                imports = [try Importer.importPolicy(foreign, from: from, selection: select)]
            }
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(diagnostic.description + "\n") }
            throw ExitCodeError(status: ExitStatus.findings)
        }
        let severity: Diagnostic.Severity = strict ? .error : .warning
        let warnings = imports.flatMap(\.warnings)
        for warning in warnings {
            var diagnostic = warning.diagnostic
            diagnostic.severity = severity
            StandardError.write(diagnostic.description + "\n")
        }
        if strict && !warnings.isEmpty {
            StandardError.write("error: \(plural(warnings.count, "setting")) cannot be imported exactly; nothing written (--strict)\n")
            throw ExitCodeError(status: ExitStatus.findings)
        }
        let force = writeOptions.force
        if let directory {
            let files = try imports.map { (path: directory + "/" + $0.name + ".yaml", text: try Self.policyFile($0)) }
            // Every file is checked before the first is written: a refusal
            // leaves the directory as it was.
            for file in files { try OutputFiles.check(file.path, root: root, force: force) }
            for file in files {
                try OutputFiles.write(file.text, to: file.path, root: root, force: force)
                StandardError.write("wrote \(DisplayText.escaped(file.path))\n")
            }
            for failure in failures { StandardError.write(DisplayText.escaped(failure.description) + "\n") }
            if !failures.isEmpty { throw ExitCodeError(status: ExitStatus.findings) }
        } else if let output {
            try OutputFiles.write(Self.policyFile(imports[0]), to: output, root: root, force: force)
        } else {
            StandardOutput.write(try Self.policyFile(imports[0]))
        }
    }

    /// The policy file an import writes, with its comments.
    static func policyFile(_ imported: ImportedPolicy) throws -> String {
        do {
            return try PolicyWriter.yaml(imported.policy, comments: imported.fileComments)
        } catch {
            throw CommandFailure(DisplayText.escaped(error.description))
        }
    }

    /// `path` without a trailing slash when it names a directory to write
    /// every configuration into: a path ending in `/` (created inside the
    /// root when missing), or an existing directory inside the root.
    static func directory(_ path: String, root: PolicyRoot) -> String? {
        if path.hasSuffix("/") {
            let trimmed = String(path.dropLast())
            return trimmed.isEmpty ? "" : trimmed
        }
        return root.isWritableDirectory(path) ? path : nil
    }
}
