import RetryPolicyCore
import Tracing

/// A span's time, taken from the executor's clock through its wall-clock
/// anchor: spans agree with the request's timeline (and a test clock gives
/// them exact times) instead of reading the system clock apart from it.
struct TraceInstant: TracerInstant {
    var nanosecondsSinceEpoch: UInt64

    init(_ timestamp: Timestamp) {
        nanosecondsSinceEpoch = UInt64(clamping: timestamp.nanosecondsSince1970)
    }

    static func < (lhs: TraceInstant, rhs: TraceInstant) -> Bool {
        lhs.nanosecondsSinceEpoch < rhs.nanosecondsSinceEpoch
    }
}
