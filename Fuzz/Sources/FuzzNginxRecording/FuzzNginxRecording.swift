import FuzzRecordingHarness
import RetryPolicySimulation

/// libFuzzer entry point for replay's Nginx reader (checks: `RecordingHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNginxRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RecordingHarness.check(data, size, format: .nginx)
    return 0
}

@_cdecl("FuzzNginxRecording_main")
public func fuzzNginxRecordingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runRecordingFuzzer(argc, argv, fuzzNginxRecording)
}
