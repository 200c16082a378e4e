import RetryPolicyCore
import RetryPolicyYAML

extension InteropFormat {
    package static let awsConfig = InteropFormat(declaring: "aws-config")
}

/// The AWS shared config file (`~/.aws/config`): one profile's
/// `retry_mode` and `max_attempts`.
struct AWSConfigFormat: InteropFormatHandler {
    var format: InteropFormat { .awsConfig }
    var candidateNoun: String { "profile" }
    var title: String { "AWS shared config file" }
    var importHelp: String { "an AWS shared config file" }
    var selectionHelp: String { "an AWS profile" }

    /// Never detected by content: INI files say too little about
    /// themselves. `import --from aws-config` names the format.
    func recognizes(_ file: ForeignFile) -> Bool { false }

    var detectsByContent: Bool { false }

    /// Sections that are not profiles.
    static let otherSections = ["sso-session ", "services "]

    func profiles(_ file: ForeignFile) throws(InteropError) -> [(name: String, section: AWSConfigImporter.Section)] {
        try AWSConfigImporter.parse(bytes: file.bytes, path: file.path)
            .filter { profile in !Self.otherSections.contains { profile.name.hasPrefix($0) } }
    }

    func candidates(in file: ForeignFile) throws(InteropError) -> [ImportCandidate] {
        let profiles = try profiles(file)
        guard !profiles.isEmpty else {
            throw InteropError(.noRetrySettings, at: file.start, "expected a [default] or [profile NAME] section, found none")
        }
        let retrying = profiles.filter { $0.section.entries["retry_mode"] != nil || $0.section.entries["max_attempts"] != nil }
        guard !retrying.isEmpty else {
            let names = profiles.prefix(10).map(\.name).joined(separator: ", ")
            throw InteropError(
                .noRetrySettings, at: profiles[0].section.location,
                "expected retry_mode or max_attempts in a profile, found none in \(plural(profiles.count, "profile")) (\(names)\(profiles.count > 10 ? ", ..." : ""))")
        }
        return profiles.map { profile in
            var parts: [String] = []
            if let mode = profile.section.entries["retry_mode"] { parts.append("retry_mode \(mode.value)") }
            if let attempts = profile.section.entries["max_attempts"] { parts.append("max_attempts \(attempts.value)") }
            return ImportCandidate(
                name: profile.name, summary: parts.isEmpty ? "no retry settings" : parts.joined(separator: ", "),
                location: profile.section.location)
        }
    }

    /// The default profile, as the SDKs choose without `AWS_PROFILE`.
    func defaultCandidate(among candidates: [ImportCandidate]) -> ImportCandidate? {
        candidates.first { $0.name == "default" }
    }

    func importCandidate(_ candidate: ImportCandidate, from file: ForeignFile) throws(InteropError) -> ImportedPolicy {
        try importCandidates([candidate], from: file)[0].get()
    }

    func importCandidates(_ candidates: [ImportCandidate], from file: ForeignFile) -> [Result<ImportedPolicy, InteropError>] {
        let byName: [String: AWSConfigImporter.Section]
        do {
            byName = Dictionary(try profiles(file).map { ($0.name, $0.section) }, uniquingKeysWith: { first, _ in first })
        } catch {
            return candidates.map { _ in .failure(error) }
        }
        return candidates.map { candidate in
            guard let section = byName[candidate.name] else {
                return .failure(InteropError(.selection, at: candidate.location, "expected the profile \(candidate.name), found none"))
            }
            return Result { () throws(InteropError) in try AWSConfigImporter.importProfile(candidate.name, section, path: file.path) }
        }
    }
}
