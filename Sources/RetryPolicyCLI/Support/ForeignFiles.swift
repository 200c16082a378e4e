import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyYAML
import RetryPolicyCommandSupport

/// Reading other layers' configuration files through the root.
enum ForeignFiles {
    /// Imports `path` (format detected unless given), printing its import
    /// warnings on standard error; located errors end the command with
    /// status 1.
    static func importPolicy(_ path: String, format: InteropFormat?, root: PolicyRoot, selection: String? = nil) throws -> Policy {
        if path != "-", case .failure(let denial) = root.locate(path), denial.kind == .notFound {
            throw CommandFailure("\(DisplayText.escaped(path)): no such file")
        }
        let bytes: [UInt8]
        switch PolicyFiles.bytes(path, root: root) {
        case .success(let read): bytes = read
        case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
        }
        let file = ForeignFile(bytes: bytes, path: path)
        do {
            let format = try Importer.format(of: file, given: format)
            let imported = try Importer.importPolicy(file, from: format, selection: selection)
            // A warning quotes the foreign file (keys, values, names); its description escapes them.
            for warning in imported.warnings { StandardError.write(warning.description + "\n") }
            return imported.policy
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(diagnostic.description + "\n") }
            throw ExitCodeError(status: ExitStatus.findings)
        }
    }
}
