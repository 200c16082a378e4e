import RetryPolicyCore
import Testing

@Suite struct TextHelperTests {
    @Test("plural: 1 is singular, every other count takes the plural")
    func plurals() {
        #expect(plural(1, "attempt") == "1 attempt")
        #expect(plural(0, "attempt") == "0 attempts")
        #expect(plural(3, "virtual host") == "3 virtual hosts")
        #expect(plural(1, "retry", plural: "retries") == "1 retry")
        #expect(plural(2, "retry", plural: "retries") == "2 retries")
    }

    @Test("numbers: whole ones without a fraction, thousandths without trailing zeros")
    func numbers() {
        #expect(NumberText.number(2) == "2")
        #expect(NumberText.number(0.5) == "0.5")
        #expect(NumberText.number(-3) == "-3")
        #expect(NumberText.number(1e20) == "1e+20")
        #expect(NumberText.thousandths(100) == "0.1")
        #expect(NumberText.thousandths(1000) == "1")
        #expect(NumberText.thousandths(125) == "0.125")
        #expect(NumberText.thousandths(2050) == "2.05")
        #expect(NumberText.thousandths(7) == "0.007")
        #expect(NumberText.decimal(1_500_000_000, fractionDigits: 9) == "1.5")
        #expect(DurationText.decimal(30_000, fractionDigits: 3) == NumberText.decimal(30_000, fractionDigits: 3))
    }

    @Test("trimmingSpaces drops spaces and tabs at both ends, nothing else")
    func trimming() {
        #expect(" \t a b \t".trimmingSpaces == "a b")
        #expect(Substring("\n x ").trimmingSpaces == "\n x")
        #expect("   ".trimmingSpaces.isEmpty)
    }

    @Test("policy and test file names")
    func fileNames() {
        #expect(PolicyFileName.isYAML("a/tmdb.yaml") && PolicyFileName.isYAML("tmdb.yml") && !PolicyFileName.isYAML("tmdb.json"))
        #expect(PolicyFileName.isTestFile("tmdb.tests.yaml") && PolicyFileName.isTestFile("tmdb.tests.yml"))
        #expect(!PolicyFileName.isTestFile("tmdb.yaml") && !PolicyFileName.isTestFile("tests.yaml"))
        #expect(PolicyFileName.testedBase(of: "tmdb.tests.yml") == "tmdb")
        #expect(PolicyFileName.testedBase(of: "tmdb.yaml") == nil)
        #expect(PolicyFileName.testFiles(besidePolicy: "p/tmdb.yml") == ["p/tmdb.tests.yaml", "p/tmdb.tests.yml"])
        #expect(PolicyFileName.testFiles(besidePolicy: "tmdb.json").isEmpty)
    }
}
