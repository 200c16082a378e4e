import FuzzRecordingHarness
import RetryPolicySimulation

/// libFuzzer entry point for replay's JSONL reader (checks: `RecordingHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONLRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RecordingHarness.check(data, size, format: .jsonl)
    return 0
}

@_cdecl("FuzzJSONLRecording_main")
public func fuzzJSONLRecordingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runRecordingFuzzer(argc, argv, fuzzJSONLRecording)
}
