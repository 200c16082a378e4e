import RetryPolicyCore
import RetryPolicyYAML

/// The names imported policies get, which are also the names of the files
/// `import --output DIR` writes (`DIR/NAME.yaml`).
///
/// A foreign file's candidate names are chosen by whoever wrote it, so a
/// name is made a safe policy name and file name here, and a set of names
/// that would share a file is refused rather than written over one
/// another:
/// - letters, digits, `.`, `_` and `-` (ASCII) are kept, every run of
///   anything else becomes one `-`;
/// - leading dots and dashes and trailing ones are dropped: no hidden
///   file, no name that reads as an option, no `.`/`..`;
/// - a name ending in `.tests` gets `-tests` instead, so that its file is
///   a policy and not a policy test file (`NAME.tests.yaml`);
/// - at most `PolicyBounds/nameLength` (128) characters, the longest
///   name the loader takes;
/// - `*`, gRPC's name for the method config of every method, is
///   `default`;
/// - a name with nothing left (only spaces, punctuation, a bidi control)
///   becomes the format's noun and the candidate's position
///   (`profile-2`), with a warning saying so;
/// - two candidates whose names end up equal, ignoring case (a checkout
///   on a case-insensitive file system would hold one file), are an
///   `InteropRule/fileName` error naming both.
enum ImportFileNames {
    /// `name` as a policy name, `nil` when none of it is left.
    static func sanitized(_ name: String) -> String? {
        if name == "*" { return "default" }
        var text = ""
        for scalar in name.unicodeScalars {
            if scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-")
            {
                text.unicodeScalars.append(scalar)
            } else if text.last != "-" {
                text.append("-")
            }
        }
        var trimmed = Substring(text).drop { $0 == "-" || $0 == "." }
        trimmed = trimmed.prefix(PolicyBounds.nameLength.upperBound)
        while let last = trimmed.last, last == "-" || last == "." { trimmed.removeLast() }
        guard !trimmed.isEmpty else { return nil }
        var result = String(trimmed)
        if result.lowercased().hasSuffix(".tests") {
            result = String(result.dropLast(".tests".count)) + "-tests"
        }
        return result
    }

    /// The name of the candidate at `position` (from 0) when nothing of
    /// its own name is left: `profile-3`, `route-retry-policy-1`.
    static func fallback(noun: String, position: Int) -> String {
        (sanitized(noun) ?? "policy") + "-\(position + 1)"
    }

    /// The warning that says a candidate was renamed to `name`.
    static func renamed(_ candidate: ImportCandidate, to name: String) -> InteropWarning {
        InteropWarning(
            feature: "name", location: candidate.location,
            message: "the name \(InteropValue.quoted(candidate.name)) holds nothing a policy name may use (letters, digits, '.', '_', '-'); imported as \(name)")
    }

    /// One name for each of `candidates`, in order, and a warning for
    /// every one renamed to its fallback; throws when two would be one
    /// file.
    static func assign(
        _ candidates: [ImportCandidate], noun: String
    ) throws(InteropError) -> (names: [String], warnings: [InteropWarning?]) {
        var names: [String] = []
        var warnings: [InteropWarning?] = []
        var owners: [String: Int] = [:]
        var collisions: [Diagnostic] = []
        for (position, candidate) in candidates.enumerated() {
            var name = sanitized(candidate.name)
            var warning: InteropWarning?
            if name == nil {
                name = fallback(noun: noun, position: position)
                warning = renamed(candidate, to: name!)
            }
            let key = name!.lowercased()
            if let earlier = owners[key] {
                let first = candidates[earlier]
                collisions.append(Diagnostic(
                    .fileName, at: candidate.location,
                    "expected every \(noun) to get a file of its own, found \(InteropValue.quoted(first.name)) (line \(first.location.line)) and \(InteropValue.quoted(candidate.name)) (line \(candidate.location.line)) both named \(names[earlier]).yaml (names are compared ignoring case, and cut at \(PolicyBounds.nameLength.upperBound) characters); nothing is written",
                    suggestion: "rename one in the source file, or import each with --select NAME --output FILE"))
            } else {
                owners[key] = position
            }
            names.append(name!)
            warnings.append(warning)
        }
        if !collisions.isEmpty { throw InteropError(collisions) }
        return (names, warnings)
    }
}
