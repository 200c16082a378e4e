import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// The named backoff shapes (`Backoff.Growth.named`) are the whole list:
/// the schema offers exactly them, each is written and read back as
/// itself, and each refuses the other shapes' parameters.
@Suite struct BackoffShapeTests {
    static let names = Backoff.Growth.named.compactMap(\.name)

    @Test("every named shape has a name and a distinct parameter key")
    func namesAndKeys() {
        #expect(Self.names.count == Backoff.Growth.named.count)
        #expect(Set(Self.names).count == Self.names.count)
        let keys = Backoff.Growth.named.compactMap(\.parameter?.key)
        #expect(Set(keys).count == keys.count)
    }

    @Test("the schema's backoff offers the named shapes and their parameter keys")
    func schemaAgrees() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.path("schema/retry-policy.schema.json")))
        let schema = try JSONSerialization.jsonObject(with: data)
        let backoff = try #require(Self.object(withProperty: "shape", in: schema))
        let properties = try #require(backoff["properties"] as? [String: Any])
        let shape = try #require(properties["shape"] as? [String: Any])
        #expect(shape["enum"] as? [String] == Self.names)
        #expect(Self.names == Backoff.Growth.fileShapes.map(\.name))
        // Each parameter is of its kind and range; which shape needs or
        // refuses it, SchemaAgreementTests checks by validating documents.
        for fileShape in Backoff.Growth.fileShapes {
            let key = fileShape.parameter.key
            let property = try #require(properties[key] as? [String: Any], "schema has no backoff.\(key)")
            switch fileShape.parameter.values {
            case .number(let range):
                #expect(property["type"] as? String == "number", "backoff.\(key)")
                #expect(property["minimum"] as? Double == range.lowerBound, "backoff.\(key)")
                #expect(property["maximum"] as? Double == range.upperBound, "backoff.\(key)")
            case .duration:
                #expect(property["$ref"] as? String == "#/$defs/duration", "backoff.\(key)")
            }
        }
    }

    @Test("each file shape builds from its own kind of value and names itself", arguments: Backoff.Growth.fileShapes.indices)
    func fileShapesAreTheirOwn(_ index: Int) throws {
        let fileShape = Backoff.Growth.fileShapes[index]
        let values = fileShape.parameter.values
        let growth = try #require(fileShape.growth(values.zero), "\(fileShape.name) refuses its own kind of value")
        let form = try #require(growth.fileForm)
        #expect(form.shape.name == fileShape.name)
        #expect(form.value == values.zero)
        let otherKind: Backoff.Growth.Parameter = if case .number = values { .duration(.zero) } else { .number(0) }
        #expect(fileShape.growth(otherKind) == nil)
        if let standard = fileShape.parameter.fileDefault { #expect(fileShape.growth(standard)?.fileForm?.value == standard) }
    }

    @Test("a policy built in code is held to each shape's parameter range", arguments: Backoff.Growth.fileShapes.indices)
    func validatorReadsTheRanges(_ index: Int) throws {
        let fileShape = Backoff.Growth.fileShapes[index]
        let outside: Backoff.Growth.Parameter = switch fileShape.parameter.values {
        case .number(let range): .number(range.upperBound + 1)
        case .duration: .duration(Backoff.ceiling + .seconds(1))
        }
        var policy = Policy(name: "p", attempts: 3, backoff: Backoff(initial: .milliseconds(100), max: .seconds(5), growth: try #require(fileShape.growth(outside))))
        policy.rules = [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)]
        #expect(throws: (any Error).self) { try policy.validated() }
        let problems = policy.problems
        #expect(problems.map(\.keyPath) == ["backoff.\(fileShape.parameter.key)"], "\(problems)")
        policy.backoff.growth = try #require(fileShape.growth(fileShape.parameter.values.zero))
        #expect(policy.problems.isEmpty)
    }

    /// The schema object whose `properties` hold `property`.
    static func object(withProperty property: String, in node: Any) -> [String: Any]? {
        if let object = node as? [String: Any] {
            if let properties = object["properties"] as? [String: Any], properties[property] != nil { return object }
            for value in object.values { if let found = Self.object(withProperty: property, in: value) { return found } }
        } else if let array = node as? [Any] {
            for value in array { if let found = Self.object(withProperty: property, in: value) { return found } }
        }
        return nil
    }

    @Test("each named shape is written and read back as itself", arguments: Backoff.Growth.named)
    func writerRoundTrip(_ growth: Backoff.Growth) throws {
        var policy = Policy(name: "p", attempts: 3, backoff: Backoff(initial: .milliseconds(100), max: .seconds(5), growth: growth))
        policy.rules = [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)]
        let text = try PolicyWriter.yaml(policy)
        let loaded = try PolicyLoader().loadPolicy(yaml: text, path: "p.yaml")
        #expect(loaded.backoff.growth == growth, "\(text)")
    }

    @Test("each named shape refuses every other shape's parameter", arguments: Backoff.Growth.named)
    func otherParametersRefused(_ growth: Backoff.Growth) throws {
        let name = try #require(growth.name)
        for other in Backoff.Growth.named where other.name != name {
            guard let key = other.parameter?.key, key != growth.parameter?.key else { continue }
            let own = growth.parameter.map { "  \($0.key): \(Self.sample($0.value))\n" } ?? ""
            let body = "version: 1\nname: p\nbackoff:\n  shape: \(name)\n  initial: 1s\n\(own)  \(key): \(Self.sample(other.parameter!.value))\n"
            do {
                _ = try PolicyLoader().loadPolicy(yaml: body, path: "p.yaml")
                Issue.record("shape \(name) accepted \(key)")
            } catch {
                #expect(error.diagnostics.map(\.description).contains { $0.contains("backoff.\(key): applies only to shape \(other.name!), found shape \(name) [RP026]") },
                        "\(error.diagnostics)")
            }
        }
    }

    static func sample(_ value: Backoff.Growth.Parameter) -> String {
        switch value {
        case .number: "2"
        case .duration: "1s"
        }
    }
}
