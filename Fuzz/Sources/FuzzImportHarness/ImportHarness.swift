import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyYAML

/// What every importer fuzz target checks, for one foreign format.
///
/// The bytes are a file of `format` exactly as read from disk (invalid
/// UTF-8 and NUL bytes included). Format detection must answer, never trap.
/// An import must end in a policy or in located diagnostics. An imported
/// policy must decide (no negative delay) and lint, and the policy file
/// `import` writes for it must load back: a file the tool writes and then
/// refuses is a defect. The path sits in a directory that does not exist.
public struct ImportHarness: Sendable {
    public var format: InteropFormat
    /// The file the input stands for; its base name becomes the policy name.
    public var path: String
    /// Selections worth trying for this input (instances, profiles, routes
    /// it names), besides none.
    public var selections: @Sendable ([UInt8]) -> [String]

    public init(format: InteropFormat, path: String, selections: @escaping @Sendable ([UInt8]) -> [String] = { _ in [] }) {
        self.format = format
        self.path = path
        self.selections = selections
    }

    /// The libFuzzer callback's body.
    public func run(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        _ = Importer.detectFormat(bytes: bytes, path: path)
        importAndCheck(bytes, selection: nil)
        for selection in selections(bytes).prefix(3) {
            importAndCheck(bytes, selection: selection)
        }
        return 0
    }

    func importAndCheck(_ bytes: [UInt8], selection: String?) {
        let imported: ImportedPolicy
        do {
            imported = try Importer.importPolicy(bytes: bytes, path: path, from: format, selection: selection)
        } catch {
            check(!error.diagnostics.isEmpty, "an import error without diagnostics")
            for diagnostic in error.diagnostics {
                check(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "unlocated: \(diagnostic)")
                _ = diagnostic.description
            }
            return
        }
        for warning in imported.warnings { _ = warning.description }

        let policy = imported.policy
        Self.decide(policy, seed: UInt64(bytes.count))
        let yaml = imported.yaml
        let policyPath = "/nonexistent-fuzz-directory/imported.yaml"
        let linter = PolicyLinter()
        let findings = linter.check(policy: policy, context: LintContext(file: policyPath))
        _ = linter.finalize(findings, source: yaml, file: policyPath)

        do {
            _ = try PolicyLoader().loadDocument(bytes: Array(yaml.utf8), path: policyPath)
        } catch {
            fatalError("the imported policy's YAML does not load back:\n\(error.diagnostics.map(\.description).joined(separator: "\n"))\n--- YAML:\n\(yaml)")
        }
    }

    /// Decides a few outcomes on attempts 1-3 for GET and POST, as
    /// `FuzzPolicyLoader` does.
    static func decide(_ policy: Policy, seed: UInt64) {
        let decider = RetryDecider(policy: policy)
        var generator = SplitMix64(seed: seed)
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        let outcomes: [AttemptOutcome] = [
            .status(200), .status(204), .response(status: 429, headers: ["Retry-After": "5"]),
            .response(status: 503, headers: ["grpc-retry-pushback-ms": "250"]), .status(503),
            .status(404), .transport(.timeout), .transport(.connectionRefused), .transport(.cancelled),
        ]
        for outcome in outcomes {
            for attempt in 1...3 {
                for method in [HTTPMethod.get, .post] {
                    let decision = decider.decide(
                        DecisionInput(outcome: outcome, attempt: attempt, method: method, now: now), using: &generator)
                    if let delay = decision.delay { check(delay >= .zero, "negative delay \(delay)") }
                    _ = decision.error?.message
                }
            }
        }
        _ = decider.admit(now: now)
    }
}

/// A precondition whose message survives an optimized build (`precondition`
/// drops it with `-O`), so that a crash report says what was wrong.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError(message(), file: file, line: line) }
}

// MARK: Selections found in the input

extension ImportHarness {
    /// Scalar values of `name` keys anywhere in the document (Istio HTTP
    /// route names), in document order.
    @Sendable public static func namedValues(_ bytes: [UInt8]) -> [String] {
        var names: [String] = []
        walk(bytes) { key, value in
            if key == "name", case .scalar(let scalar) = value { names.append(scalar.value) }
        }
        return names
    }

    /// Keys of every mapping under an `instances` or `configs` key
    /// (resilience4j instance and config names), in document order.
    @Sendable public static func instanceNames(_ bytes: [UInt8]) -> [String] {
        var names: [String] = []
        walk(bytes) { key, value in
            if key == "instances" || key == "configs", case .mapping(let entries, _) = value {
                names.append(contentsOf: entries.map(\.key.value))
            }
        }
        return names
    }

    /// Names of `[section]` and `[profile name]` headers of an INI file, as
    /// the AWS config importer reads them.
    @Sendable public static func iniSections(_ bytes: [UInt8]) -> [String] {
        var names: [String] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            var text = Substring(line.drop { $0 == " " || $0 == "\t" })
            while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
            guard text.hasPrefix("["), text.hasSuffix("]"), text.count >= 2 else { continue }
            var name = text.dropFirst().dropLast().drop { $0 == " " || $0 == "\t" }
            while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
            if name.hasPrefix("profile ") {
                name = name.dropFirst("profile ".count).drop { $0 == " " || $0 == "\t" }
            }
            names.append(String(name))
        }
        return names
    }

    /// Calls `visit` with every key and value of every mapping, to a
    /// bounded depth; nothing for text that is not YAML.
    static func walk(_ bytes: [UInt8], _ visit: (String, YAMLNode) -> Void) {
        guard let root = try? YAMLParser.parse(bytes: bytes, path: "/nonexistent-fuzz-directory/input") else { return }
        func walk(_ node: YAMLNode, depth: Int) {
            guard depth < 32 else { return }
            switch node {
            case .mapping(let entries, _):
                for entry in entries {
                    visit(entry.key.value, entry.value)
                    walk(entry.value, depth: depth + 1)
                }
            case .sequence(let items, _):
                for item in items { walk(item, depth: depth + 1) }
            case .scalar: break
            }
        }
        walk(root, depth: 0)
    }
}

// MARK: libFuzzer's driver

/// Hands control to libFuzzer's driver with `callback` as the target; each
/// target's `<Target>_main` (the entry point SwiftPM links) calls this.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
