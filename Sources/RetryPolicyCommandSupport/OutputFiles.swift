import RetryPolicyCore
import RetryPolicyYAML

/// The files commands write (`import --output`, `init`, `--svg` charts),
/// all through ``PolicyRoot/write(_:to:replacing:)``: inside the root the
/// command reads through, atomically, never through a link, never over an
/// existing file without `--force`. A refusal is a usage error naming the
/// path and what to do.
package enum OutputFiles {
    package static func write(_ text: String, to path: String, root: PolicyRoot, force: Bool) throws(CommandFailure) {
        do {
            try root.write(text, to: path, replacing: force)
        } catch {
            throw failure(error)
        }
    }

    /// Refuses what ``write(_:to:root:force:)`` would, touching nothing: a
    /// command writing several files checks every one before the first.
    package static func check(_ path: String, root: PolicyRoot, force: Bool) throws(CommandFailure) {
        do {
            try root.checkWritable(path, replacing: force)
        } catch {
            throw failure(error)
        }
    }

    private static func failure(_ error: PolicyRoot.WriteError) -> CommandFailure {
        CommandFailure(DisplayText.escaped(error.description))
    }
}
