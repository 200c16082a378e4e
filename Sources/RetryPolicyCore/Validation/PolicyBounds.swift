/// The ranges that keep a policy's numbers meaningful; beyond them a value
/// is a mistake. The loader reads files against them and
/// ``PolicyValidator`` checks policies built in code against them, and the
/// JSON Schema states the same. A backoff shape's parameter has its range
/// beside the shape, in `Backoff.Growth.FileShape`.
package enum PolicyBounds {
    package static let attempts = 1...100
    package static let budgetCapacity = 1...1_000_000
    package static let budgetAmount = 0...1_000_000
    package static let amplification = 1...1_000_000
    /// gRPC's `retryThrottling.maxTokens` (gRFC A6: above 0, at most 1000).
    package static let grpcMaxTokens = 1...1000
    /// gRPC's `retryThrottling.tokenRatio`: above 0 (checked apart, with
    /// the three decimals), at most 1000.
    package static let grpcTokenRatio = 0.0...1000.0
    /// A ratio budget's `retry_percent` in thousandths of requests: 0 %
    /// to 1000 % (Finagle's `percentCanRetry` range), one decimal.
    package static let ratioPermille = 0...10_000
    /// The same as a file writes it, in percent.
    package static let ratioPercent = 0.0...1000.0
    /// A ratio budget's `min_retries_per_second`.
    package static let ratioMinRetriesPerSecond = 0...1_000_000
    /// A ratio budget's `window`: 1 s to 60 s, Finagle's `ttl` range.
    package static let ratioWindow = Duration.seconds(1)...Duration.seconds(60)
    /// A name: 1 to 128 letters, digits, `.`, `_` or `-`.
    package static let nameLength = 1...128

    /// The circuit breaker's numbers.
    package enum Breaker {
        package static let ratio = 0.0...1.0
        package static let calls = 1...1_000_000
        package static let multiplier = 1.0...100.0
        package static let probes = 1...1_000
    }

    /// Adaptive mode's numbers (`rate_limit`): wide enough for any tuning,
    /// narrow enough that CUBIC's arithmetic stays finite.
    package enum RateLimit {
        // β, C, the smoothing and the minimum rate must also be above 0
        // (checked apart, as the JSON Schema's exclusiveMinimum).
        /// β, the share of the rate kept after throttling.
        package static let beta = 0.0...1.0
        package static let scaleConstant = 0.0...1_000.0
        /// The newest measurement's weight.
        package static let smoothing = 0.0...1.0
        /// Attempts per second.
        package static let minimumRate = 0.0...1_000_000.0
        package static let maximumRateScale = 1.0...100.0
    }

    /// `an integer from 1 to 100`: what a value in `range` is, in messages.
    package static func describe(_ range: ClosedRange<Int>) -> String {
        "an integer from \(range.lowerBound) to \(range.upperBound)"
    }

    /// `a number from 0 to 100`.
    package static func describe(_ range: ClosedRange<Double>) -> String {
        "a number from \(NumberText.number(range.lowerBound)) to \(NumberText.number(range.upperBound))"
    }

    /// Whether `text` is a policy or layer name.
    package static func isName(_ text: String) -> Bool {
        // ASCII only, so bytes are characters.
        nameLength.contains(text.utf8.count) && text.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// Whether `text` is a snake_case identifier (`[a-z][a-z0-9_]*`, at
    /// most 64 bytes): error kinds, conditions, platforms.
    package static func isIdentifier(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= 64
            && bytes.first! >= UInt8(ascii: "a") && bytes.first! <= UInt8(ascii: "z")
            && bytes.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "_")
            }
    }
}
