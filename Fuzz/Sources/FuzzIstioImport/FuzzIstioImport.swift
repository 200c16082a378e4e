import FuzzImportHarness

/// libFuzzer entry point for Istio VirtualServices (one or several documents).
/// The checks are `ImportHarness.run`'s (Fuzz/Sources/FuzzImportHarness).
let harness = ImportHarness(format: .istio, path: "/nonexistent-fuzz-directory/virtual-service.yaml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIstioImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    harness.run(data, size)
}

@_cdecl("FuzzIstioImport_main")
public func fuzzIstioImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzIstioImport)
}
