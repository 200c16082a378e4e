/// Ids of import errors (the foreign file is malformed or breaks its own
/// format's rules). The loader's ids (RP001-RP009) are used for YAML and
/// file problems.
public enum InteropRule: String, Sendable, CaseIterable {
    /// A required field is missing.
    case missingField = "RPI01"
    /// A field has the wrong type.
    case wrongType = "RPI02"
    /// A value the format's own validation rejects.
    case invalidValue = "RPI03"
    /// The file is not of the named format.
    case notThisFormat = "RPI04"
    /// The file is of the named format but holds no retry settings.
    case noRetrySettings = "RPI05"
    /// The file holds several retry configurations and none was chosen,
    /// or the chosen name matches none.
    case selection = "RPI06"
    /// Two retry configurations of one file would be written to one file
    /// name (`import --output DIR`).
    case fileName = "RPI07"

    public var id: String { rawValue }
}
