/// The endpoint a recorded request counts under: its path without the
/// query or fragment, with segments that identify one resource (numbers,
/// UUIDs, long hexadecimal or mixed tokens) written `{id}`, so that
/// `/users/42` and `/users/43` share one model.
enum EndpointKey {
    static func fromTarget(_ target: Substring) -> String {
        var path = target
        // An absolute URL (HAR, JSONL `url`): drop the scheme and authority.
        if let colon = path.firstIndex(of: ":"), path[colon...].hasPrefix("://"),
            path[..<colon].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." })
        {
            let afterScheme = path[path.index(colon, offsetBy: 3)...]
            path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? "/"
        }
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        if path.isEmpty { return "/" }
        var output = ""
        output.reserveCapacity(path.utf8.count)
        var first = true
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if !first { output += "/" }
            first = false
            output += isIdentifier(segment) ? "{id}" : String(segment)
        }
        return output
    }

    private static func isIdentifier(_ segment: Substring) -> Bool {
        guard !segment.isEmpty else { return false }
        var digits = 0
        var hex = 0
        var dashes = 0
        var other = 0
        for byte in segment.utf8 {
            switch byte {
            case 48...57: digits += 1
            case 97...102, 65...70: hex += 1
            case 45: dashes += 1
            default: other += 1
            }
        }
        let count = segment.utf8.count
        if digits == count { return true }
        // UUIDs and hashes: hexadecimal with dashes, long, with digits.
        if other == 0, digits > 0, count >= 8 { return true }
        // Opaque tokens: long and mostly digits mixed with letters.
        return count >= 16 && digits * 3 >= count && dashes == 0
    }
}
