/// The names each platform's SDK uses for an error kind.
///
/// Seed behaviour: iOS reports `SDKError.status_429` where Android reports
/// `MediationError.STATUS_429`; keeping both as data lets the error table
/// and the parity check be generated instead of hand-maintained.
public struct PlatformNames: Hashable, Sendable {
    /// platform → kind → name.
    public var names: [String: [SDKError.Kind: String]]

    public init(_ names: [String: [SDKError.Kind: String]] = [:]) { self.names = names }

    public func name(of kind: SDKError.Kind, on platform: String) -> String? {
        names[platform]?[kind]
    }

    public var platforms: [String] { names.keys.sorted() }

    /// Entries of `override` replace those of `self`, kind by kind.
    package func merging(_ override: PlatformNames) -> PlatformNames {
        var merged = names
        for (platform, kinds) in override.names {
            merged[platform, default: [:]].merge(kinds) { _, new in new }
        }
        return PlatformNames(merged)
    }

    /// The names seed documents give for the standard kinds.
    public static let standard = PlatformNames([
        "ios": [
            .noFill: "SDKError.noFill",
            .networkError: "SDKError.networkError",
            .status429: "SDKError.status_429",
            .status5xx: "SDKError.status_5xx",
            .timeout: "SDKError.timeout",
            .internalError: "SDKError.internalError",
            .invalidPlacement: "SDKError.invalidPlacement",
            .unauthorized: "SDKError.unauthorized",
            .notFound: "SDKError.notFound",
            .cancelled: "SDKError.cancelled",
            .decodingFailed: "SDKError.decodingFailed",
        ],
        "android": [
            .noFill: "MediationError.NO_FILL",
            .networkError: "MediationError.NETWORK_ERROR",
            .status429: "MediationError.STATUS_429",
            .status5xx: "MediationError.STATUS_5XX",
            .timeout: "MediationError.TIMEOUT",
            .internalError: "MediationError.INTERNAL_ERROR",
            .invalidPlacement: "MediationError.INVALID_PLACEMENT",
            .unauthorized: "MediationError.UNAUTHORIZED",
            .notFound: "MediationError.NOT_FOUND",
            .cancelled: "MediationError.CANCELLED",
            .decodingFailed: "MediationError.DECODING_FAILED",
        ],
    ])
}
