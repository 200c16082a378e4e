import FuzzImportHarness

/// libFuzzer entry point for resilience4j Spring configuration (kebab-case and camelCase).
/// The checks are `ImportHarness.run`'s (Fuzz/Sources/FuzzImportHarness).
let harness = ImportHarness(format: .resilience4j, path: "/nonexistent-fuzz-directory/application.yaml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResilience4jImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    harness.run(data, size)
}

@_cdecl("FuzzResilience4jImport_main")
public func fuzzResilience4jImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzResilience4jImport)
}
