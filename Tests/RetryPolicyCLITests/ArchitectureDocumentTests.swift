import Foundation
import Testing

/// docs/architecture.md is a map of the sources: every file or folder and
/// every type it names in backticks exists, so a file moved or a type
/// renamed fails here with the name the map has to follow.
@Suite("Architecture document")
struct ArchitectureDocumentTests {
    static let document = "docs/architecture.md"

    /// Names from Swift and the packages the sources use, which the map
    /// mentions without declaring.
    static let foreign: Set<String> = ["Clock", "Duration", "Service", "NIOSSLContext", "Sendable", "ParsableCommand"]

    /// The `code spans` of a Markdown text, outside fenced blocks (the
    /// module drawing is checked against Package.swift by its own test).
    static func codeSpans(in markdown: String) -> [String] {
        var spans: [String] = []
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            let parts = line.split(separator: "`", omittingEmptySubsequences: false)
            // Odd parts are inside backticks.
            for index in stride(from: 1, to: parts.count - 1, by: 2) { spans.append(String(parts[index])) }
        }
        return spans
    }

    /// Every file and folder under `folder`, relative to the package root.
    static func tree(_ folder: String) -> [String] {
        let root = CLI.packageRoot.path + "/"
        guard let walker = FileManager.default.enumerator(atPath: root + folder) else { return [] }
        var paths: [String] = []
        while let path = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            FileManager.default.fileExists(atPath: root + folder + "/" + path, isDirectory: &isFolder)
            paths.append(folder + "/" + path + (isFolder.boolValue ? "/" : ""))
        }
        return paths
    }

    /// The text of every Swift file under `folder`.
    static func swiftText(_ folder: String) throws -> String {
        try tree(folder).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: CLI.packageRoot.path + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
    }

    /// Where a path the map writes is: `Core/Backoff.swift` is
    /// `Sources/RetryPolicyCore/Backoff.swift` and `RetryPolicyCore/Text` is
    /// `Sources/RetryPolicyCore/Text`; a path from the package root
    /// (`Sources/...`, `docs/...`) is itself; a test file is the end of a
    /// path under Tests/, and any other the end of a path under Sources/
    /// (`Telemetry/`, `RequestTime.swift`).
    static func resolves(_ path: String, sources: [String], tests: [String]) -> Bool {
        let root = CLI.packageRoot.path + "/"
        let first = path.split(separator: "/").first.map(String.init) ?? path
        if ["Sources", "Tests", "docs", "schema", "scripts", "Fuzz", "policies", "Benchmarks"].contains(first) {
            return FileManager.default.fileExists(atPath: root + path)
        }
        if path.contains("/"), FileManager.default.fileExists(atPath: root + "Sources/" + first) {
            return FileManager.default.fileExists(atPath: root + "Sources/" + path)
        }
        if path.contains("/"), FileManager.default.fileExists(atPath: root + "Sources/RetryPolicy" + first) {
            return FileManager.default.fileExists(atPath: root + "Sources/RetryPolicy" + path)
        }
        let tree = path.hasSuffix("Tests.swift") ? tests : sources
        return tree.contains { $0.hasSuffix("/" + path) }
    }

    /// The package's traits (`Postgres`), which the map names as such.
    static func traits(in manifest: String) -> Set<String> {
        var names: Set<String> = []
        var rest = manifest[...]
        while let range = rest.range(of: ".trait(\n            name: \"") ?? rest.range(of: ".trait(name: \"") {
            let after = rest[range.upperBound...]
            guard let close = after.firstIndex(of: "\"") else { break }
            names.insert(String(after[..<close]))
            rest = after[close...]
        }
        return names
    }

    static func declares(_ name: String, in text: String) -> Bool {
        text.range(of: #"\b(struct|enum|class|actor|protocol|typealias)\s+"# + name + #"\b"#, options: .regularExpression) != nil
    }

    static func hasMember(_ name: String, in text: String) -> Bool {
        text.range(of: #"\b(func|var|let|case)\s+"# + name + #"\b"#, options: .regularExpression) != nil
            || (name == "init" && text.contains("init("))
    }

    @Test("every file, folder and type the map names exists")
    func namesExist() throws {
        let markdown = try String(contentsOf: CLI.packageRoot.appendingPathComponent(Self.document), encoding: .utf8)
        let sources = Self.tree("Sources")
        let tests = Self.tree("Tests")
        let sourceText = try Self.swiftText("Sources")
        let testText = try Self.swiftText("Tests")
        let manifest = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        let traits = Self.traits(in: manifest)
        #expect(traits.contains("Postgres"), "\(traits)")
        func folders(_ paths: [String]) -> Set<String> {
            Set(paths.filter { $0.split(separator: "/").count == 2 && $0.hasSuffix("/") }.map { String($0.split(separator: "/")[1]) })
        }
        let modules = folders(sources).union(folders(tests))
        var paths = 0
        var types = 0
        for span in Self.codeSpans(in: markdown) {
            if span.contains("/") || span.hasSuffix(".swift") {
                guard !span.contains(" "), !span.hasPrefix("-") else { continue }
                paths += 1
                let exists = Self.resolves(span, sources: sources, tests: tests)
                #expect(exists, "\(Self.document) names \(span), which is not in the tree")
            } else if span.range(of: #"^[A-Z][A-Za-z0-9]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\([A-Za-z_:]*\))?$"#, options: .regularExpression) != nil,
                span.contains(where: \.isLowercase)  // not an SQL word (`NOTIFY`)
            {
                types += 1
                let components = span.split(separator: "(")[0].split(separator: ".").map(String.init)
                let first = components[0]
                if modules.contains(first) || traits.contains(first) || Self.foreign.contains(first) { continue }
                // A test suite is found among the tests, the rest in Sources/.
                let text = first.hasSuffix("Tests") ? testText : sourceText
                let declared = Self.declares(first, in: text)
                #expect(declared, "\(Self.document) names \(first) (in `\(span)`), which nothing declares")
                for member in components.dropFirst() {
                    let found = member.first!.isUppercase ? Self.declares(member, in: sourceText) : Self.hasMember(member, in: sourceText)
                    #expect(found, "\(Self.document) names \(member) (in `\(span)`), which nothing declares")
                }
            }
        }
        // The map names enough of the tree that this is not vacuous.
        #expect(paths >= 30, "\(paths) paths checked")
        #expect(types >= 60, "\(types) names checked")
    }

    /// The module drawing's arrows are the targets' dependencies: every
    /// `A -> B` line of the dependency list is a dependency in
    /// Package.swift, and every library target's dependencies on this
    /// package's modules are listed.
    @Test("the dependency list is Package.swift's")
    func dependenciesMatchThePackage() throws {
        let markdown = try String(contentsOf: CLI.packageRoot.appendingPathComponent(Self.document), encoding: .utf8)
        let manifest = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        // The targets' own dependencies, from the manifest's text.
        var declared: [String: Set<String>] = [:]
        let targetPattern = #"\.(?:target|executableTarget)\(\s*name:\s*"([A-Za-z]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#
        let regex = try NSRegularExpression(pattern: targetPattern)
        for match in regex.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            guard name.hasPrefix("RetryPolicy"), !name.hasSuffix("TestSupport") else { continue }
            var dependencies: Set<String> = []
            if let range = Range(match.range(at: 2), in: manifest) {
                for quoted in manifest[range].split(separator: "\n").flatMap({ $0.split(separator: ",") }) {
                    let item = quoted.trimmingCharacters(in: .whitespaces)
                    if item.hasPrefix("\"RetryPolicy"), item.hasSuffix("\"") { dependencies.insert(String(item.dropFirst().dropLast())) }
                }
            }
            declared[name] = dependencies
        }
        #expect(declared.count >= 12, "\(declared.keys.sorted())")
        // The map's list: `- RetryPolicyX -> RetryPolicyY, RetryPolicyZ`.
        var listed: [String: Set<String>] = [:]
        for line in markdown.split(separator: "\n") where line.hasPrefix("- `RetryPolicy") && line.contains(" -> ") {
            let sides = line.dropFirst(2).components(separatedBy: " -> ")
            let name = sides[0].trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            let targets = sides[1].split(separator: ";")[0].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` .")) }
            listed[name] = Set(targets.filter { $0.hasPrefix("RetryPolicy") })
        }
        for (name, dependencies) in declared {
            #expect(listed[name] == dependencies, "\(name): the map lists \(listed[name].map { $0.sorted() } ?? []), Package.swift has \(dependencies.sorted())")
        }
        for name in listed.keys where declared[name] == nil {
            Issue.record("the map lists \(name), which Package.swift does not declare")
        }
    }
}
