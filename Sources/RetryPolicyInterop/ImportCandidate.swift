import RetryPolicyCore
import RetryPolicyYAML

/// One retry configuration a foreign file holds and that imports on its
/// own: a gRPC method config, an Envoy route or virtual host, an Istio
/// HTTP route, a resilience4j instance, an AWS profile.
public struct ImportCandidate: Sendable {
    /// The name `--select` takes (a route's name, `SERVICE/METHOD`, a
    /// profile), unique in its file.
    public var name: String
    /// Other names that select it (a gRPC method config's every
    /// `service/method`, an Istio route's VirtualService name).
    public var aliases: [String]
    /// A few words on what it holds, for candidate lists.
    package var summary: String
    public var location: SourceLocation
    /// Where the handler finds it again: the node it imports and the
    /// nodes around it, innermost last.
    let node: YAMLNode?
    let context: [YAMLNode]

    init(name: String, aliases: [String] = [], summary: String, location: SourceLocation, node: YAMLNode? = nil, context: [YAMLNode] = []) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.location = location
        self.node = node
        self.context = context
    }

    /// `name`, or `name#2`, `name#3`... when `used` has it already (two
    /// routes of one name in different route configurations); recorded
    /// in `used`.
    static func unique(_ name: String, among used: inout Set<String>) -> String {
        var result = name
        var counter = 2
        while used.contains(result) {
            result = "\(name)#\(counter)"
            counter += 1
        }
        used.insert(result)
        return result
    }

    /// Whether `selection` names this candidate.
    func answers(to selection: String) -> Bool {
        name == selection || aliases.contains(selection)
    }
}
