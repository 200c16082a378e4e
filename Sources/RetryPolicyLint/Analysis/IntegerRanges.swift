/// Compresses sorted integers into `100-199, 204, 300-399`, the way people
/// write status codes and attempt numbers.
public enum IntegerRanges {
    package static func ranges(_ values: some Sequence<Int>) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for value in Set(values).sorted() {
            if let last = result.last, last.upperBound + 1 == value {
                result[result.count - 1] = last.lowerBound...value
            } else {
                result.append(value...value)
            }
        }
        return result
    }

    public static func text(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)-\(range.upperBound)"
    }

    public static func text(_ values: some Sequence<Int>) -> String {
        ranges(values).map { text($0) }.joined(separator: ", ")
    }
}
