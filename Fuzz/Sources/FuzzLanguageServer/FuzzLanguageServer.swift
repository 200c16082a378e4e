import Dispatch
import Foundation
import RetryPolicyLanguageServer
import RetryPolicyYAML

/// libFuzzer entry point for `retry-policy lsp`'s standard input.
///
/// The first byte picks how the rest is cut into reads (`ReadSchedule`);
/// the rest is the byte stream an editor writes: `Content-Length` frames
/// of JSON-RPC. `LanguageServerSession` drives a fresh server with it as
/// `StandardStreamTransport` does and checks what comes out.
///
/// libFuzzer calls this on the main thread: the session runs in a task
/// and the call waits for it on a semaphore, so the main thread is never
/// one the task needs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLanguageServer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let selector = bytes.first else { return 0 }
    let stream = Array(bytes.dropFirst())
    let root = fuzzRoot
    let finished = DispatchSemaphore(value: 0)
    Task {
        await LanguageServerSession(root: root).run(stream, in: ReadSchedule(selector: selector))
        finished.signal()
    }
    finished.wait()
    return 0
}

/// The workspace root the server is given: an empty directory of its
/// own, made once. The server never writes, so it stays empty; seeds name
/// documents in it (`file:///tmp/retry-policy-fuzz-language-server/…`)
/// so that they are checked as policies, not as files outside the root.
let fuzzRoot: PolicyRoot = {
    let path = "/tmp/retry-policy-fuzz-language-server"
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return try PolicyRoot(directory: path)
    } catch {
        fatalError("cannot make the workspace root \(path): \(error)")
    }
}()

/// SwiftPM links an executable's entry point as `FuzzLanguageServer_main`;
/// hand control to libFuzzer's driver from there.
@_cdecl("FuzzLanguageServer_main")
public func fuzzLanguageServerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, fuzzLanguageServer)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
