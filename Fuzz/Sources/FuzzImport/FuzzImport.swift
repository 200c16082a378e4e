import FuzzImportHarness

/// libFuzzer entry point for every import format `InteropRegistry` lists:
/// each input is read as a file of each format in turn (a gRPC config fed
/// to the Envoy importer is hostile input too), or of one format only with
/// FUZZ_IMPORT_FORMAT=NAME. The checks are `ImportHarness.run`'s
/// (Fuzz/Sources/FuzzImportHarness); the seed corpus is Corpus/Import, one
/// directory per format.
let harnesses = ImportHarness.registered()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    for harness in harnesses { _ = harness.run(data, size) }
    return 0
}

@_cdecl("FuzzImport_main")
public func fuzzImportMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzImport)
}
