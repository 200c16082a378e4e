import ArgumentParser
import Foundation
import RetryPolicyCommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `retry-policy request`: runs the `retry-policy-request` executable, the
/// way `git foo` runs `git-foo`. Sending HTTP needs NIO, AsyncHTTPClient and
/// BoringSSL, and `--state` needs PostgresNIO; keeping them in a second
/// executable lets `swift build --product retry-policy` (the lint, test and
/// analysis commands CI needs) compile and link none of them.
///
/// `RetryPolicyCommand.main` hands `request ...` and `help request` over
/// before parsing, so the help, the options and the exit statuses are those
/// of `retry-policy-request`; this command exists for the subcommand list of
/// `retry-policy --help` and for when the executable is missing.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request",
        abstract: "Perform an HTTP request under a policy, like curl --retry with the policy's rules.",
        discussion: """
            Runs the \(RequestDispatch.executableName) executable, found next to retry-policy or \
            on PATH; `retry-policy request --help` shows its options. Build it with \
            `swift build -c release --product \(RequestDispatch.executableName)`.
            """)

    @Argument(parsing: .captureForPassthrough, help: "The URL and options of the request.")
    var arguments: [String] = []

    func run() throws {
        try RequestDispatch.run(arguments)
    }
}

/// Finding and running `retry-policy-request`.
enum RequestDispatch {
    static let executableName = "retry-policy-request"

    /// The arguments to hand over when the command line is a request
    /// (`request ARGS...`, or `help request` for its help), else nil.
    static func forwardedArguments(_ arguments: [String]) -> [String]? {
        if arguments.first == "request" { return Array(arguments.dropFirst()) }
        if arguments.count >= 2, arguments[0] == "help", arguments[1] == "request", locate() != nil { return ["--help"] }
        return nil
    }

    /// Replaces this process with `retry-policy-request arguments...`, so
    /// its output, standard input, signals and exit status are the
    /// request's own. Returns only by throwing: exit status 2 with how to
    /// build the executable when it is missing.
    static func run(_ arguments: [String]) throws(CommandFailure) {
        guard let path = locate() else {
            throw CommandFailure("""
                `retry-policy request` needs the \(executableName) executable, which is neither next to \
                retry-policy nor on PATH; build it with `swift build -c release --product \(executableName)` \
                and install it next to retry-policy
                """)
        }
        let argv = [path] + arguments
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(path, cArguments)
        let reason = String(cString: strerror(errno))
        for argument in cArguments { free(argument) }
        throw CommandFailure("cannot run \(path): \(reason)")
    }

    /// `retry-policy-request` in the directory of the running executable (as
    /// invoked, then with symbolic links resolved), else the first on PATH.
    static func locate() -> String? {
        var directories: [String] = []
        let invoked = CommandLine.arguments.first ?? ""
        if invoked.contains("/") { directories.append(directory(of: invoked)) }
        if let executable = runningExecutable() { directories.append(directory(of: executable)) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        directories += path.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        for directory in directories {
            let candidate = directory + "/" + executableName
            var status = stat()
            if stat(candidate, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The running executable's real path.
    private static func runningExecutable() -> String? {
        #if os(Linux)
        let candidate = "/proc/self/exe"
        #else
        guard let candidate = Bundle.main.executablePath else { return nil }
        #endif
        guard let resolved = realpath(candidate, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
