import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Process {
    /// Waits until the child exits and returns its exit status (the signal
    /// number when a signal ended it, as `terminationStatus` does).
    ///
    /// Foundation's `waitUntilExit()` on Linux can miss a child's exit on
    /// a loaded machine and wait forever, the child left a zombie (seen
    /// with the test suite on two busy cores). This waits with `waitid`
    /// without reaping, so Foundation can still see the exit; if it does
    /// not within a second, the child is reaped here.
    public func waitForExit() -> Int32 {
        let pid = processIdentifier
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 {
            // ECHILD: Foundation has reaped it already.
            guard errno == EINTR else { break }
        }
        for _ in 0..<100 where isRunning { usleep(10_000) }
        if !isRunning { return terminationStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return terminationStatus }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }
}
