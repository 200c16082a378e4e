/// The version of the package and of the `retry-policy` tool: what
/// `retry-policy --version` prints and SARIF reports as the tool's version.
/// CHANGELOG.md lists what each version changed.
public enum RetryPolicyVersion {
    public static let current = "1.1.0"
}
