import RetryPolicyCore

/// A request method read from a recording, without allocating for the
/// common ones.
enum RecordedMethod {
    private static let common: [([UInt8], HTTPMethod)] = HTTPMethod.standard.map { (Array($0.rawValue.utf8), $0) }

    static func method(_ bytes: ArraySlice<UInt8>) -> HTTPMethod {
        if let known = common.first(where: { $0.0.elementsEqual(bytes) }) { return known.1 }
        return HTTPMethod(rawValue: String(decoding: bytes, as: UTF8.self))
    }
}
