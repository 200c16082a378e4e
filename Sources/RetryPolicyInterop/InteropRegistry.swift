/// The formats this package reads and writes, one handler each. The CLI's
/// `import` and `export`, lint's stack layers and the tests iterate this
/// list, so a new format is added here and nowhere else.
public enum InteropRegistry {
    public static let handlers: [any InteropFormatHandler] = [
        GRPCFormat(),
        EnvoyFormat(),
        IstioFormat(),
        Resilience4jFormat(),
        AWSConfigFormat(),
        GatewayAPIFormat(),
    ]
}
