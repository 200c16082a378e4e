import PropertyBased
import RetryPolicyCore
import Testing

/// Notifications on the shared-state channel are read from text any peer
/// could have sent: what parses is in range, what does not is refused
/// with a reason, and nothing traps or takes more than linear time.
@Suite("Shared state: notifications from peers")
struct SharedStateNotificationTests {
    @Test("The forms the stores send are read back")
    func realShapes() {
        #expect(
            SharedStateNotification.parse("1764000000000000000 503 status_5xx fleet")
                == .success(.cooldown(SharedCooldown(key: "fleet", until: Timestamp(nanosecondsSince1970: 1_764_000_000_000_000_000), kind: .status5xx, status: 503))))
        #expect(
            SharedStateNotification.parse("1764000000000000000 - status_429 a key with spaces")
                == .success(.cooldown(SharedCooldown(key: "a key with spaces", until: Timestamp(nanosecondsSince1970: 1_764_000_000_000_000_000), kind: .status429, status: nil))))
        #expect(
            SharedStateNotification.parse("breaker 7 open 1764000000000000000 3 fleet")
                == .success(.breaker(SharedBreakerChange(key: "fleet", opening: 7, isOpen: true, until: Timestamp(nanosecondsSince1970: 1_764_000_000_000_000_000), openings: 3))))
        #expect(
            SharedStateNotification.parse("breaker 8 closed 0 0 fleet")
                == .success(.breaker(SharedBreakerChange(key: "fleet", opening: 8, isOpen: false, until: Timestamp(nanosecondsSince1970: 0), openings: 0))))
        #expect(SharedStateNotification.parse("probe 123") == .success(.probe))
    }

    @Test(
        "Malformed payloads are refused with the reason",
        arguments: [
            ("", SharedStateNotification.Problem.fieldCount(expected: 4, found: 1)),
            ("1 2 3", .fieldCount(expected: 4, found: 3)),
            ("x 503 status_5xx k", .notANumber(field: "UNTIL_NS")),
            ("99999999999999999999 503 status_5xx k", .notANumber(field: "UNTIL_NS")),
            ("+1 503 status_5xx k", .notANumber(field: "UNTIL_NS")),
            (" 1 503 status_5xx k", .notANumber(field: "UNTIL_NS")),
            ("1 999 status_5xx k", .outOfRange(field: "STATUS", expected: "100...599 or -")),
            ("1 -5 status_5xx k", .outOfRange(field: "STATUS", expected: "100...599 or -")),
            ("1 503 Status5xx k", .badKind),
            ("1 503 \u{1B}[31m k", .badKind),
            ("1 503 status_5xx ", .emptyKey),
            ("breaker 1 open 5 3", .fieldCount(expected: 6, found: 5)),
            ("breaker x open 5 3 k", .notANumber(field: "OPENING")),
            ("breaker -1 open 5 3 k", .outOfRange(field: "OPENING", expected: "0 or more")),
            ("breaker 1 ajar 5 3 k", .badState),
            ("breaker 1 open 5 -3 k", .outOfRange(field: "OPENINGS", expected: "0 or more")),
            ("breaker 1 open 5 99999999999999999999 k", .notANumber(field: "OPENINGS")),
            ("breaker 1 open 5 3 ", .emptyKey),
        ])
    func malformed(payload: String, problem: SharedStateNotification.Problem) {
        #expect(SharedStateNotification.parse(payload) == .failure(problem))
    }

    @Test("A payload longer than PostgreSQL can carry is refused before it is read")
    func tooLong() {
        let payload = String(repeating: "9", count: 100_000) + " 503 status_5xx k"
        #expect(SharedStateNotification.parse(payload) == .failure(.tooLong(bytes: 100_017)))
    }

    @Test("A cooldown of 235 years is cut to the policy's cap; a breaker's break and count to its own bounds")
    func limits() {
        let now = Timestamp(secondsSince1970: 1_764_000_000)
        let farOff = Timestamp(secondsSince1970: 1_764_000_000 + 235 * 365 * 86_400)
        let cooldown = SharedCooldown(key: "k", until: farOff, kind: .status429, status: 429)
        #expect(cooldown.limited(to: .seconds(60), at: now).until == now + .seconds(60))
        // Within the cap it is taken as it is.
        let near = SharedCooldown(key: "k", until: now + .seconds(30), kind: .status429, status: 429)
        #expect(near.limited(to: .seconds(60), at: now) == near)
        let configuration = CircuitBreakerConfiguration(breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300))
        let change = SharedBreakerChange(key: "k", opening: 1, isOpen: true, until: Timestamp(nanosecondsSince1970: .max), openings: .max)
        let limited = change.limited(by: configuration, at: now)
        #expect(limited.until == now + .seconds(300))
        #expect(limited.openings == CircuitBreakerConfiguration.maximumOpenings)
    }

    @Test("Any payload: parsing never traps, and whatever is accepted is in range and, limited, within the bounds")
    func anyPayload() async {
        let pieces: [String] = [
            "breaker ", "probe ", " ", "-", "0", "1", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "503", "429", "open", "closed", "status_5xx", "k", "\u{0}", "\u{1B}", "\u{202E}", "é", "::", "##[",
        ]
        await propertyCheck(count: 500, input: Gen.int(in: 0...(pieces.count - 1)).map { pieces[$0] }.array(of: 0...12), Gen.int(in: 0...Int(Int32.max))) { parts, seconds in
            let payload = parts.joined()
            let now = Timestamp(secondsSince1970: Int64(seconds))
            let configuration = CircuitBreakerConfiguration(breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300))
            switch SharedStateNotification.parse(payload) {
            case .success(.cooldown(let cooldown)):
                #expect(!cooldown.key.isEmpty)
                if let status = cooldown.status { #expect((100...599).contains(status)) }
                #expect(cooldown.kind.rawValue.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 })
                #expect(cooldown.limited(to: .seconds(60), at: now).until <= now + .seconds(60))
            case .success(.breaker(let change)):
                #expect(!change.key.isEmpty && change.opening >= 0 && change.openings >= 0)
                let limited = change.limited(by: configuration, at: now)
                #expect(limited.until <= now + .seconds(300))
                #expect((0...CircuitBreakerConfiguration.maximumOpenings).contains(limited.openings))
            case .success(.probe), .failure: break
            }
        }
    }
}
