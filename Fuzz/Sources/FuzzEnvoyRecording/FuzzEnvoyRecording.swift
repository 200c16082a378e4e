import FuzzRecordingHarness
import RetryPolicySimulation

/// libFuzzer entry point for replay's Envoy reader (checks: `RecordingHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvoyRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    RecordingHarness.check(data, size, format: .envoy)
    return 0
}

@_cdecl("FuzzEnvoyRecording_main")
public func fuzzEnvoyRecordingMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runRecordingFuzzer(argc, argv, fuzzEnvoyRecording)
}
