import FuzzRecordingHarness
import RetryPolicySimulation

/// libFuzzer entry point for replay's HAR reader (checks: `RecordingHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHARRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RecordingHarness.check(data, size, format: .har)
    return 0
}

@_cdecl("FuzzHARRecording_main")
public func fuzzHARRecordingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runRecordingFuzzer(argc, argv, fuzzHARRecording)
}
