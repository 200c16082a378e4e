/// The structural checks of the loader, each with a stable id.
///
/// Ids are part of the public contract: configuration files, suppressions
/// and CI annotations refer to them, so a check keeps its id forever and a
/// new check gets a new one.
public enum LoaderRule: String, CaseIterable, Sendable {
    case yamlSyntax = "RP001"
    case encoding = "RP002"
    case limitExceeded = "RP003"
    case aliasOrAnchor = "RP004"
    case unsupportedTag = "RP005"
    case duplicateKey = "RP006"
    case documentCount = "RP007"
    case unreadableFile = "RP008"
    case outsideRoot = "RP009"
    case unknownKey = "RP010"
    case wrongType = "RP011"
    case missingKey = "RP012"
    case invalidValue = "RP013"
    case invalidDuration = "RP014"
    case invalidStatus = "RP015"
    case unknownErrorKind = "RP016"
    case unknownTransport = "RP017"
    case unknownMethod = "RP018"
    case outOfRange = "RP019"
    case unsupportedVersion = "RP020"
    case extendsProblem = "RP021"
    case extendsCycle = "RP022"
    case incompleteRule = "RP023"
    case wrongDocumentKind = "RP024"
    case referenceProblem = "RP025"
    case keyConflict = "RP026"
    case unknownCondition = "RP027"
    case unknownGRPCStatus = "RP028"

    public var id: String { rawValue }

    /// A short name for rule listings.
    public var title: String {
        switch self {
        case .yamlSyntax: "YAML syntax error"
        case .encoding: "file is not UTF-8 text"
        case .limitExceeded: "file exceeds a safety limit"
        case .aliasOrAnchor: "anchors and aliases are not allowed"
        case .unsupportedTag: "tag outside the YAML core schema"
        case .duplicateKey: "duplicate key"
        case .documentCount: "file must hold exactly one YAML document"
        case .unreadableFile: "file cannot be read"
        case .outsideRoot: "path is not a policy file inside the root"
        case .unknownKey: "unknown key"
        case .wrongType: "value of the wrong type"
        case .missingKey: "required key missing"
        case .invalidValue: "value not among the allowed ones"
        case .invalidDuration: "malformed duration"
        case .invalidStatus: "malformed HTTP status pattern"
        case .unknownErrorKind: "undeclared error kind"
        case .unknownTransport: "unknown transport failure class"
        case .unknownMethod: "unknown HTTP method"
        case .outOfRange: "number out of range"
        case .unsupportedVersion: "unsupported format version"
        case .extendsProblem: "extended policy cannot be loaded"
        case .extendsCycle: "policies extend each other in a cycle"
        case .incompleteRule: "rule without condition or error"
        case .wrongDocumentKind: "stack file where a policy is expected (or the reverse), or a tests file given to lint"
        case .referenceProblem: "policy named by parity or a stack layer cannot be loaded"
        case .keyConflict: "key does not apply to the chosen backoff shape or budget preset"
        case .unknownCondition: "undeclared condition"
        case .unknownGRPCStatus: "unknown gRPC status name"
        }
    }

    /// Why the check exists and how to fix what it reports.
    public var explanation: String {
        switch self {
        case .yamlSyntax:
            "The file is not well-formed YAML. Fix the syntax at the reported position; indentation and unclosed quotes or brackets are the usual causes."
        case .encoding:
            "Policy files are UTF-8 text. Invalid UTF-8 sequences and NUL characters usually mean a binary or UTF-16 file was saved under a .yaml name."
        case .limitExceeded:
            "To stay safe on hostile input the loader bounds file size (1 MiB), nesting depth (64) and node count (100,000). A real policy is far below these; split anything larger."
        case .aliasOrAnchor:
            "Anchors (&name) and aliases (*name) are refused: they make a policy harder to read in review and allow exponential expansion (the billion-laughs attack). Use `extends` to share settings between files."
        case .unsupportedTag:
            "Only the YAML core schema tags (!!str, !!int, !!bool, !!null, !!float, !!map, !!seq) are accepted, and only on nodes of their kind. Custom tags would make the file mean different things to different tools."
        case .duplicateKey:
            "A key appears twice in one mapping. YAML parsers disagree on which value wins, so the loader refuses the file instead of guessing."
        case .documentCount:
            "A policy file holds exactly one YAML document; a file that is empty or has a second `---` document is refused."
        case .unreadableFile:
            "The file could not be opened or read: it does not exist, it is a directory, FIFO, socket or device (never opened, so nothing blocks), it is larger than the size limit (reading stops there), or the system refused."
        case .outsideRoot:
            "Policies are read only from inside the root: the enclosing git work tree, or the working directory, or what --root names (a PolicyStore: its directory). A path that is absolute, climbs out with '..', or passes through a symbolic link that leads out is refused before anything outside is looked up, and so is anything in a .git folder, on /proc, /sys or /dev, and a file named by extends, parity or a stack layer (or reached through a symbolic link) whose name does not end in .yaml or .yml. The diagnostic names the path; the file is never opened, so nothing of it can appear in any output. Move the file inside the root, or widen the root with --root when you trust the whole tree."
        case .unknownKey:
            "The key is not part of the policy format. A misspelt key would otherwise be silently ignored and the policy would run with a default you did not choose."
        case .wrongType:
            "The value has the wrong YAML type, for example a quoted number where a number is expected, or a list where a mapping is expected."
        case .missingKey:
            "A required key is missing: `version` and `name` in every file, `action` in every rule, `error` for `retry` and `stop` rules, `name` and `policy` in every stack layer."
        case .invalidValue:
            "The value is not one of the words the format allows for this key; the message lists them."
        case .invalidDuration:
            "Durations are written as one or more <number><unit> with units h, m, s, ms in descending order: 250ms, 10s, 1m30s, 1.5s; at most 100 days. A bare number is refused because it could mean seconds or milliseconds."
        case .invalidStatus:
            "A status pattern is an integer code (429), a class (\"5xx\") or an inclusive range (\"500-504\"), all within 100-599, or a list of those. Write single codes without quotes."
        case .unknownErrorKind:
            "Error kinds are the standard ones (no_fill, network_error, status_429, status_5xx, timeout, internal_error, invalid_placement, unauthorized, not_found, cancelled, decoding_failed) or ones declared under `errors`."
        case .unknownTransport:
            "Transport classes are timeout, connection_lost, offline, dns, tls, connection_refused, cancelled, invalid_url, decoding and unknown."
        case .unknownMethod:
            "Methods are the standard upper-case HTTP methods: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, TRACE, CONNECT."
        case .outOfRange:
            "The number is outside the range the key accepts, for example `attempts: 0` (attempts count every try, so at least 1), `attempts` above 100, a `multiplier` outside 0-100, or an empty list where at least one item is needed."
        case .unsupportedVersion:
            "Only `version: 1` exists."
        case .extendsProblem:
            "The file named by `extends` could not be read or is not a policy. Paths are relative to the file that extends."
        case .extendsCycle:
            "Policies extend each other in a loop, so none of them has a defined meaning. Break the cycle."
        case .incompleteRule:
            "A rule needs `status`, `transport` or `condition` (otherwise it matches nothing), and `retry` and `stop` rules need an `error` kind to report."
        case .wrongDocumentKind:
            "A file with `stack:` is a stack file describing layers; it cannot be used where one policy is expected, and a stack file cannot also have rules."
        case .referenceProblem:
            "A policy named by `parity:` or by a stack layer's `policy:` does not load, so the parity check or the amplification check cannot run. The diagnostic is on the referencing line and says where the first problem of that file is, without quoting it; lint that file on its own to see its problems. Paths are relative to the referencing file."
        case .keyConflict:
            "Some keys belong to one choice only: `backoff.step` to `shape: linear`, `backoff.multiplier` to the exponential shape, `budget.max_tokens` and `budget.token_ratio` to `preset: grpc`, the token-bucket costs to every other budget. A key that would be ignored is refused, so the policy means what it says; remove it or change the choice."
        case .unknownCondition:
            "A rule's `condition` names an outcome class the policy declares under `conditions`. The caller's code classifies results into conditions (a 200 whose body is an error page, say); the policy decides what each means. Declare the name, or correct its spelling."
        case .unknownGRPCStatus:
            "A rule's `grpc` names gRPC status codes by their canonical upper-case names (grpc/grpc doc/statuscodes.md): OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED. Another letter case or a code's number is refused with the name to write."
        }
    }
}
