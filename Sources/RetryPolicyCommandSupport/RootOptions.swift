import ArgumentParser
import RetryPolicyYAML

/// `--root`: the directory every file a command reads or writes must lie in.
package struct RootOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read and write files only inside this directory (default: the enclosing git work tree, else the working directory).",
        valueName: "DIR"))
    package var root: String?

    package init() {}

    /// The root named, or the default one.
    package func policyRoot() throws(CommandFailure) -> PolicyRoot {
        do {
            if let root { return try PolicyRoot(directory: root) }
            return try PolicyRoot.enclosing()
        } catch {
            throw CommandFailure(error.description)
        }
    }
}
