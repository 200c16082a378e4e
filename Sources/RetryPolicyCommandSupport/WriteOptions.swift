import ArgumentParser

/// `--force`, shared by every command that writes a file.
package struct WriteOptions: ParsableArguments {
    @Flag(help: "Replace a file that already exists (a regular file only: never a symbolic link or a directory).")
    package var force = false

    package init() {}
}
