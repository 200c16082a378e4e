import RetryPolicyCore
import Testing

@Suite struct ResolutionSourceTests {
    @Test("the source of every input slot is the source its resolution names", arguments: [
        SeedPolicies.tmdb, SeedPolicies.mobileClient, SeedPolicies.mobileSDK(),
    ])
    func sourceAgreesWithResolution(_ policy: Policy) {
        var noDefault = policy
        noDefault.defaultRule = nil
        for policy in [policy, noDefault] {
            let compiled = CompiledPolicy(policy: policy)
            for method in HTTPMethod.standard {
                let table = compiled.methodSlot(method)
                for status in 100...599 {
                    let slot = CompiledPolicy.inputSlot(status: status)!
                    #expect(compiled.source(inputSlot: slot, methodSlot: table) == compiled.resolution(for: .status(status), method: method).source)
                }
                for transport in TransportFailure.allCases {
                    let slot = CompiledPolicy.inputSlot(transport: transport)
                    #expect(compiled.source(inputSlot: slot, methodSlot: table) == compiled.resolution(for: .transport(transport), method: method).source)
                }
            }
        }
    }

    @Test("a 2xx is an implicit success; nothing else is")
    func implicitSuccess() {
        #expect(CompiledPolicy.isImplicitSuccess(.status(200)) && CompiledPolicy.isImplicitSuccess(.status(299)))
        #expect(!CompiledPolicy.isImplicitSuccess(.status(199)) && !CompiledPolicy.isImplicitSuccess(.status(300)))
        #expect(!CompiledPolicy.isImplicitSuccess(.transport(.timeout)))
    }
}
