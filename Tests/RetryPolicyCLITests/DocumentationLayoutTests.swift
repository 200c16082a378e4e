import Foundation
import Testing

/// The README opens with the job and stays short; the details live in
/// docs/, and every relative link between the two, anchors included,
/// leads somewhere (a section that moves breaks no link).
@Suite("Documentation layout")
struct DocumentationLayoutTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: CLI.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    static var documents: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    @Test("the README is short, starts with the quick start and keeps the two commands")
    func readme() throws {
        let readme = try Self.text("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 200, "README.md has \(lines.count) lines")
        let headings = lines.filter { $0.hasPrefix("## ") }
        #expect(headings.first == "## Quick start")
        // The main job and the test command, verbatim.
        #expect(readme.contains("```console\n$ swift run retry-policy lint policies\n"))
        #expect(readme.contains("```console\n$ scripts/test\n```"))
        for command in ["retry-policy init ", "retry-policy lint", "retry-policy test ", "retry-policy decide ", "replay", "uses: "] {
            #expect(readme.contains(command), "README.md does not mention \(command)")
        }
    }

    /// GitHub's anchor of a heading: lower case, punctuation other than
    /// `-` and `_` dropped, spaces as `-`; a repeated heading gets `-1`, `-2`...
    static func anchors(in markdown: String) -> Set<String> {
        var result: Set<String> = []
        var seen: [String: Int] = [:]
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode, line.hasPrefix("#"), let space = line.firstIndex(of: " "),
                line[..<space].allSatisfy({ $0 == "#" })
            else { continue }
            let title = line[line.index(after: space)...].trimmingCharacters(in: .whitespaces).lowercased()
            let slug = String(title.unicodeScalars.compactMap { scalar -> Character? in
                if scalar == " " { return "-" }
                if scalar == "-" || scalar == "_" || CharacterSet.alphanumerics.contains(scalar) { return Character(scalar) }
                return nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            result.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return result
    }

    /// The `](target)` links of a Markdown text outside code blocks.
    static func links(in markdown: String) -> [String] {
        var result: [String] = []
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            if inCode { continue }
            var rest = line[...]
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                result.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return result
    }

    /// `docs/../SECURITY.md` as `SECURITY.md`.
    static func normalized(_ components: [String]) -> String {
        var result: [String] = []
        for component in components where component != "." {
            if component == "..", !result.isEmpty { result.removeLast() } else { result.append(component) }
        }
        return result.joined(separator: "/")
    }

    @Test("every relative link of the README and docs/ leads to a file and a heading there")
    func links() throws {
        let root = CLI.packageRoot
        var checked = 0
        for document in Self.documents {
            let text = try Self.text(document)
            let directory = document.split(separator: "/").dropLast().map(String.init)
            for link in Self.links(in: text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let target = path.isEmpty ? document : Self.normalized(directory + path.split(separator: "/").map(String.init))
                let exists = FileManager.default.fileExists(atPath: root.appendingPathComponent(target).path)
                #expect(exists, "\(document): \(link) leads to no file")
                if exists, parts.count == 2, target.hasSuffix(".md") {
                    let anchors = Self.anchors(in: try Self.text(target))
                    #expect(anchors.contains(String(parts[1])), "\(document): \(link): \(target) has no such heading")
                }
                checked += 1
            }
        }
        #expect(checked > 50, "\(checked) links checked")
    }
}
