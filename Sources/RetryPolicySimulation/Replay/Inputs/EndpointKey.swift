/// The endpoint a recorded request counts under: its path without the
/// query or fragment, with segments that identify one resource (numbers,
/// UUIDs, long hexadecimal or mixed tokens) written `{id}`, so that
/// `/users/42` and `/users/43` share one model.
enum EndpointKey {
    static func fromTarget(_ target: Substring) -> String {
        fromTarget(Array(target.utf8)[...])
    }

    static func fromTarget(_ target: ArraySlice<UInt8>) -> String {
        var path = target
        // An absolute URL (HAR, JSONL `url`): drop the scheme and authority.
        if let colon = path.firstIndex(of: UInt8(ascii: ":")), colon + 2 < path.endIndex,
            path[colon + 1] == UInt8(ascii: "/"), path[colon + 2] == UInt8(ascii: "/"),
            path[..<colon].allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || $0 == 43 || $0 == 45 || $0 == 46 })
        {
            let afterScheme = path[(colon + 3)...]
            path = afterScheme.firstIndex(of: UInt8(ascii: "/")).map { afterScheme[$0...] } ?? []
        }
        if let end = path.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { path = path[..<end] }
        if path.isEmpty { return "/" }
        var output: [UInt8] = []
        output.reserveCapacity(path.count)
        var segmentStart = path.startIndex
        var index = path.startIndex
        while true {
            if index == path.endIndex || path[index] == UInt8(ascii: "/") {
                let segment = path[segmentStart..<index]
                if isIdentifier(segment) { output.append(contentsOf: Self.placeholder) } else { output.append(contentsOf: segment) }
                if index == path.endIndex { break }
                output.append(UInt8(ascii: "/"))
                segmentStart = index + 1
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let placeholder = Array("{id}".utf8)

    private static func isIdentifier(_ segment: ArraySlice<UInt8>) -> Bool {
        guard !segment.isEmpty else { return false }
        var digits = 0
        var hex = 0
        var dashes = 0
        var other = 0
        for byte in segment {
            switch byte {
            case 48...57: digits += 1
            case 97...102, 65...70: hex += 1
            case 45: dashes += 1
            default: other += 1
            }
        }
        let count = segment.count
        if digits == count { return true }
        // UUIDs and hashes: hexadecimal with dashes, long, with digits.
        if other == 0, digits > 0, count >= 8 { return true }
        // Opaque tokens: long and mostly digits mixed with letters.
        return count >= 16 && digits * 3 >= count && dashes == 0
    }
}
