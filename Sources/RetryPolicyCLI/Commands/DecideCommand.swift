import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyCommandSupport

struct DecideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Show what a policy decides for one response or transport failure.",
        discussion: """
            Examples:
              retry-policy decide policies/tmdb.yaml --status 503
              retry-policy decide policies/tmdb.yaml --status 429 --retry-after 2 --attempt 2
              retry-policy decide policies/tmdb.yaml --transport timeout --elapsed 25s --format json
              retry-policy decide policies/tmdb.yaml --status 503 --retry-after 'Mon, 23 Nov 2026 12:00:20 GMT' --now 2026-11-23T12:00:00Z

            The JSON form is {"action", "error", "reason", "delay_ms": {"min", "max"}, "rule"}: \
            delay_ms gives the bounds jitter can draw from (equal without jitter) and rule is the \
            FILE:LINE of the rule that decided (null when no rule did). error is the kind the \
            outcome maps to (also for a retry: the error reported if it were the last attempt).
            """)

    @Argument(help: "The policy file (- reads it from standard input).")
    var policy: String

    @Option(help: "The response status (100-599).")
    var status: Int?

    @Option(help: ArgumentHelp("The transport failure instead of a response: \(TransportFailure.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "class"))
    var transport: String?

    @Option(name: .customLong("retry-after"), help: "The response's Retry-After header (delta-seconds or HTTP-date).")
    var retryAfter: String?

    @Option(name: .customLong("header"), help: ArgumentHelp("Another response header, as curl writes it (repeatable).", valueName: "Name: value"), transform: HeaderArgument.parse)
    var headers: [ResponseHeaders.Field] = []

    @Option(help: "Which attempt produced the outcome; 1 is the first try.")
    var attempt: Int = 1

    @Option(help: "Time since the first attempt started, e.g. 2.5s.", transform: DurationArgument.parse)
    var elapsed = DurationArgument(.zero)

    @OptionGroup var request: RequestOptions

    @Option(help: ArgumentHelp(
        "The wall-clock time of the response, for HTTP-date and Unix-time headers: Unix seconds (1795435200), ISO 8601 UTC (2026-11-23T12:00:00Z) or an IMF-fixdate ('Mon, 23 Nov 2026 12:00:00 GMT'). Default: the system clock.",
        valueName: "instant"))
    var now: String?

    @Option(help: "Output format.")
    var format: OutputFormat = .human

    @OptionGroup var rootOptions: RootOptions

    func validate() throws {
        try request.validate()
        if (status == nil) == (transport == nil) {
            throw ValidationError("give exactly one of --status or --transport")
        }
        if let status, !StatusPattern.validCodes.contains(status) {
            throw ValidationError("--status must be within 100-599, found \(status)")
        }
        if let transport, TransportFailure(rawValue: transport) == nil {
            throw ValidationError("--transport must be one of \(TransportFailure.allCases.map(\.rawValue).joined(separator: ", ")), found '\(DisplayText.escaped(transport))'")
        }
        if attempt < 1 { throw ValidationError("--attempt must be at least 1") }
        if let now, case .failure(let message) = NowOption.parse(now) {
            throw ValidationError("--now: \(message)")
        }
    }

    func run() throws {
        let loaded = try PolicyFiles.loadPolicy(policy, root: rootOptions.policyRoot())
        var responseHeaders = ResponseHeaders()
        if let retryAfter { responseHeaders.append(name: "Retry-After", value: retryAfter) }
        for header in headers { responseHeaders.append(name: header.name, value: header.value) }
        let outcome: AttemptOutcome = status.map { .response(status: $0, headers: responseHeaders) }
            ?? .transport(TransportFailure(rawValue: transport!)!)
        let now = (try? self.now.map { try NowOption.parse($0).get() })
            ?? Timestamp(nanosecondsSince1970: Int64(Date().timeIntervalSince1970 * 1e9))
        let input = DecisionInput(
            outcome: outcome, attempt: attempt, elapsed: elapsed.value,
            method: request.httpMethod, markedIdempotent: request.idempotent, endpoint: request.endpoint, now: now)
        let outline = RetryDecider(policy: loaded).outline(input)
        switch format {
        case .json:
            StandardOutput.write(DecisionJSON.value(outline).rendered() + "\n")
        case .human:
            // The sentence names the policy, its file and error names.
            StandardOutput.write(DisplayText.escapedLines(DecisionText.sentence(outline, input: input, policy: loaded)) + "\n")
        }
    }
}

/// The instant `decide --now` accepts, parsed strictly: one of three
/// spellings, whole seconds, UTC only, within the span of a ``Timestamp``
/// (1677-09-21 to 2262-04-11).
enum NowOption {
    static let expected =
        "expected Unix seconds (1795435200), ISO 8601 UTC (2026-11-23T12:00:00Z) or an IMF-fixdate (Mon, 23 Nov 2026 12:00:00 GMT)"

    enum Failure: Error, CustomStringConvertible {
        case malformed(String)
        case outOfRange(String)

        var description: String {
            switch self {
            case .malformed(let text): "\(NowOption.expected), found '\(DisplayText.escaped(text))'"
            case .outOfRange(let text): "'\(DisplayText.escaped(text))' is outside the range of a timestamp (1677-09-21 to 2262-04-11)"
            }
        }
    }

    static func parse(_ text: String) -> Result<Timestamp, Failure> {
        let bytes = Array(text.utf8)
        let timestamp: Timestamp?
        if !bytes.isEmpty, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard bytes.count <= 11, let seconds = Int64(text), seconds <= Int64.max / 1_000_000_000 else {
                return .failure(.outOfRange(text))
            }
            timestamp = Timestamp(secondsSince1970: seconds)
        } else if let iso = iso8601(bytes) {
            timestamp = iso
        } else {
            timestamp = HTTPDate.parseIMFFixdate(text)
        }
        guard let timestamp else { return .failure(.malformed(text)) }
        if timestamp.nanosecondsSince1970 == .max || timestamp.nanosecondsSince1970 == .min {
            return .failure(.outOfRange(text))
        }
        return .success(timestamp)
    }

    /// Exactly `YYYY-MM-DDTHH:MM:SSZ`: upper-case `T` and `Z`, no fraction,
    /// no offset. `nil` when the shape is wrong or the date does not exist.
    static func iso8601(_ bytes: [UInt8]) -> Timestamp? {
        let shape = Array("dddd-dd-ddTdd:dd:ddZ".utf8)
        guard bytes.count == shape.count else { return nil }
        for (byte, expected) in zip(bytes, shape) {
            if expected == UInt8(ascii: "d") {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            } else if byte != expected {
                return nil
            }
        }
        func number(_ range: Range<Int>) -> Int {
            bytes[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        return HTTPDate.timestamp(
            year: number(0..<4), month: number(5..<7), day: number(8..<10),
            hour: number(11..<13), minute: number(14..<16), second: number(17..<19))
    }
}
