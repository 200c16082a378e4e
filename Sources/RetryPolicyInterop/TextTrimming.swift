extension Substring {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    func trimmingCharacters() -> String { Substring(self).trimmingSpaces }
}
