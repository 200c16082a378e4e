import Foundation

/// Paths of files in this repository, found from this source file so the
/// tests run from any working directory.
enum RepositoryFiles {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func path(_ relative: String) -> String { root + "/" + relative }

    static var fixtures: String { path("Tests/RetryPolicyYAMLTests/Fixtures") }

    static func fixture(_ name: String) -> String { fixtures + "/" + name }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }
}
