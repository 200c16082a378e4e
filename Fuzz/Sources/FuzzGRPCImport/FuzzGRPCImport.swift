import FuzzImportHarness

/// libFuzzer entry point for gRPC service configs (and DNS TXT record lists of them).
/// The checks are `ImportHarness.run`'s (Fuzz/Sources/FuzzImportHarness).
let harness = ImportHarness(format: .grpc, path: "/nonexistent-fuzz-directory/service-config.json")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGRPCImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    harness.run(data, size)
}

@_cdecl("FuzzGRPCImport_main")
public func fuzzGRPCImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzGRPCImport)
}
