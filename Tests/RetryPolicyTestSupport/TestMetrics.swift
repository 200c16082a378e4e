import CoreMetrics
import RetryPolicyCore

/// A metrics backend that remembers every value, for asserting telemetry.
public final class TestMetrics: MetricsFactory, Sendable {
    public init() {}

    public struct Key: Hashable, Sendable, CustomStringConvertible {
        public var label: String
        public var dimensions: [String: String]
        public var description: String {
            "\(label)\(dimensions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })"
        }
    }

    private let counters = LockedValue<[Key: Int64]>([:])
    private let timers = LockedValue<[Key: [Int64]]>([:])
    private let recorders = LockedValue<[Key: [Double]]>([:])

    public func counter(_ label: String, _ dimensions: [String: String]) -> Int64 {
        counters.withLock { $0[Key(label: label, dimensions: dimensions)] ?? 0 }
    }
    public func timer(_ label: String, _ dimensions: [String: String]) -> [Int64] {
        timers.withLock { $0[Key(label: label, dimensions: dimensions)] ?? [] }
    }
    /// Every value recorded, by histograms and gauges alike.
    public func recorded(_ label: String, _ dimensions: [String: String]) -> [Double] {
        recorders.withLock { $0[Key(label: label, dimensions: dimensions)] ?? [] }
    }
    public var counterKeys: [Key] { counters.withLock { Array($0.keys) } }
    public var recorderKeys: [Key] { recorders.withLock { Array($0.keys) } }
    public var timerKeys: [Key] { timers.withLock { Array($0.keys) } }

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> Key {
        Key(label: label, dimensions: Dictionary(dimensions, uniquingKeysWith: { $1 }))
    }

    final class CounterBox: CounterHandler, Sendable {
        let key: Key
        let owner: TestMetrics
        init(key: Key, owner: TestMetrics) { self.key = key; self.owner = owner }
        func increment(by amount: Int64) { owner.counters.withLock { $0[key, default: 0] += amount } }
        func reset() { owner.counters.withLock { $0[key] = 0 } }
    }

    final class TimerBox: TimerHandler, Sendable {
        let key: Key
        let owner: TestMetrics
        init(key: Key, owner: TestMetrics) { self.key = key; self.owner = owner }
        func recordNanoseconds(_ duration: Int64) { owner.timers.withLock { $0[key, default: []].append(duration) } }
    }

    final class RecorderBox: RecorderHandler, Sendable {
        let key: Key
        let owner: TestMetrics
        init(key: Key, owner: TestMetrics) { self.key = key; self.owner = owner }
        func record(_ value: Int64) { record(Double(value)) }
        func record(_ value: Double) { owner.recorders.withLock { $0[key, default: []].append(value) } }
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        CounterBox(key: Self.key(label, dimensions), owner: self)
    }
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        RecorderBox(key: Self.key(label, dimensions), owner: self)
    }
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        TimerBox(key: Self.key(label, dimensions), owner: self)
    }
    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}
}
