import FuzzImportHarness

/// libFuzzer entry point for Envoy route configurations, listeners and config dumps.
/// The checks are `ImportHarness.run`'s (Fuzz/Sources/FuzzImportHarness).
let harness = ImportHarness(format: .envoy, path: "/nonexistent-fuzz-directory/route.yaml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvoyImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    harness.run(data, size)
}

@_cdecl("FuzzEnvoyImport_main")
public func fuzzEnvoyImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzEnvoyImport)
}
