import FuzzImportHarness

/// libFuzzer entry point for AWS shared config files (profiles and sections without prefix).
/// The checks are `ImportHarness.run`'s (Fuzz/Sources/FuzzImportHarness).
let harness = ImportHarness(format: .awsConfig, path: "/nonexistent-fuzz-directory/config")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAWSConfigImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    harness.run(data, size)
}

@_cdecl("FuzzAWSConfigImport_main")
public func fuzzAWSConfigImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzAWSConfigImport)
}
