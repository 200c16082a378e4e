/// Text that came from outside the tool (a file name, a policy or test
/// file, a recording, a foreign configuration, a database row, a peer's
/// notification) made safe to print on a terminal, in a CI log or in a
/// log record.
///
/// Every report format and every log call that shows such text goes
/// through ``escaped(_:)``: one rule, so that no format forgets a case.
/// What it guards against:
/// - terminal control: ESC and the other C0 and C1 controls (colour,
///   cursor moves, window titles, hyperlinks, clearing the screen);
/// - forged lines: CR, LF, NEL, LS and PS, so that a name cannot start a
///   line of its own (a fake result, a fake `::error` annotation);
/// - reordered text: the Unicode bidirectional controls (U+061C, U+200E,
///   U+200F, U+202A to U+202E, U+2066 to U+2069), which make a terminal
///   or a web log show characters in another order than they are, and the
///   byte order mark;
/// - GitHub Actions workflow commands: a `::` at the start of the text
///   (after spaces, which the runner skips) and a `##[` anywhere (the
///   runner's older command form, recognised anywhere in a line) are
///   broken with an escape, so no text can become an annotation, a mask or
///   an environment change.
///
/// Each such character is written as a visible `\u{..}` escape (upper-case
/// hexadecimal), which names it exactly and cannot itself steer anything.
/// A tab is kept unless `keepingTabs` is false. Text with nothing to
/// escape is returned as it is, without copying.
package enum DisplayText {
    package static func escaped(_ text: String, keepingTabs: Bool = true) -> String {
        let scalars = text.unicodeScalars
        let leadingCommand = startsWithCommand(scalars)
        guard leadingCommand || scalars.contains(where: { isUnsafe($0, keepingTabs: keepingTabs) })
            || containsOldCommand(scalars)
        else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        var leading = leadingCommand
        var previous: (Unicode.Scalar, Unicode.Scalar) = (" ", " ")
        for scalar in scalars {
            let breaksCommand =
                (leading && scalar == ":" && previous.1 == ":")
                || (scalar == "[" && previous == ("#", "#"))
            if breaksCommand || isUnsafe(scalar, keepingTabs: keepingTabs) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            if breaksCommand { leading = false }
            previous = (previous.1, scalar)
        }
        return result
    }

    /// Text of several lines, each line escaped on its own: the line feeds
    /// between them stay (they are the caller's own), everything else is as
    /// ``escaped(_:keepingTabs:)`` writes it, so no line can start a
    /// workflow command or steer the terminal. For a sink that prints
    /// messages it did not compose line by line (an `error: ...` of a
    /// failing command).
    package static func escapedLines(_ text: String) -> String {
        let lineFeed: Character = "\n"
        guard text.contains(lineFeed) else { return escaped(text) }
        return text.split(separator: lineFeed, omittingEmptySubsequences: false)
            .map { escaped(String($0)) }
            .joined(separator: "\n")
    }

    /// Whether the text, after spaces and tabs, starts with `::`.
    private static func startsWithCommand(_ scalars: String.UnicodeScalarView) -> Bool {
        scalars.drop(while: { $0 == " " || $0 == "\t" }).starts(with: "::".unicodeScalars)
    }

    private static func containsOldCommand(_ scalars: String.UnicodeScalarView) -> Bool {
        var previous: (Unicode.Scalar, Unicode.Scalar) = (" ", " ")
        for scalar in scalars {
            if scalar == "[" && previous == ("#", "#") { return true }
            previous = (previous.1, scalar)
        }
        return false
    }

    /// Whether `scalar` is written as an escape wherever it stands.
    package static func isUnsafe(_ scalar: Unicode.Scalar, keepingTabs: Bool = true) -> Bool {
        switch scalar.value {
        case 0x09: !keepingTabs
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        case 0x2028, 0x2029, 0xFEFF: true  // line and paragraph separators, byte order mark
        default: false
        }
    }
}
