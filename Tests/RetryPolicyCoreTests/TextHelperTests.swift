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

@Suite struct HeaderSyntaxTests {
    func parsed(_ text: String) -> ResponseHeaders.Field? { try? ResponseHeaders.Field.parse(text).get() }

    @Test("Name: value as curl writes it; the value loses surrounding spaces and tabs, keeps its colons")
    func accepted() {
        #expect(parsed("Retry-After: 3") == ResponseHeaders.Field(name: "Retry-After", value: "3"))
        #expect(parsed("Retry-After:3") == ResponseHeaders.Field(name: "Retry-After", value: "3"))
        #expect(parsed("X-Reason: \t a b \t") == ResponseHeaders.Field(name: "X-Reason", value: "a b"))
        #expect(parsed("Date: Wed, 21 Oct 2015 07:28:00 GMT") == ResponseHeaders.Field(name: "Date", value: "Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(parsed("X-Empty:") == ResponseHeaders.Field(name: "X-Empty", value: ""))
    }

    @Test("no colon, an empty name, or a space or tab in the name is refused, saying where")
    func refused() {
        func problem(_ text: String) -> HeaderSyntaxError.Problem? {
            if case .failure(let error) = ResponseHeaders.Field.parse(text) { return error.problem }
            return nil
        }
        #expect(problem("no-colon") == .noColon)
        #expect(problem(": 2") == .emptyName)
        #expect(problem("Retry After: 2") == .blankInName(column: 6))
        #expect(problem(" Retry-After: 2") == .blankInName(column: 1))
        #expect(problem("Retry-After\t: 2") == .blankInName(column: 12))
    }

    @Test("the message quotes the text, says what is wrong, and spells Name=value as Name: value")
    func messages() {
        func message(_ text: String) -> String {
            if case .failure(let error) = ResponseHeaders.Field.parse(text) { return error.description }
            return ""
        }
        #expect(message("Retry-After=3") == "expected a header as curl writes it, 'Name: value', found 'Retry-After=3': no ':' after the name; write 'Retry-After: 3'")
        #expect(message("no-colon") == "expected a header as curl writes it, 'Name: value', found 'no-colon': no ':' after the name")
        #expect(message(": 2") == "expected a header as curl writes it, 'Name: value', found ': 2': no name before ':'")
        #expect(message("Retry After: 2") == "expected a header as curl writes it, 'Name: value', found 'Retry After: 2': the name holds a space or tab at column 6")
    }
}
