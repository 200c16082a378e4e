/// A count and its noun, as messages write them: `1 attempt`, `3 attempts`;
/// `plural` for a noun that does not just take an `s` (`1 retry`,
/// `2 retries`).
package func plural(_ count: Int, _ noun: String, plural: String? = nil) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(plural ?? noun + "s")"
}
