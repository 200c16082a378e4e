#if GRPC  // the trait; these tests need grpc-swift
import GRPCCore

/// Messages as their bytes: the test service needs no generated code.
public struct BytesCoder: MessageSerializer, MessageDeserializer {
    public typealias Message = [UInt8]

    public init() {}

    public func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }

    public func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
        serializedMessageBytes.withUnsafeBytes { Array($0) }
    }
}
#endif
