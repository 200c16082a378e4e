#if Postgres  // the trait; without it this module is empty
import Logging
import PostgresNIO

extension PostgresRetryStateStore {
    /// Creates the tables if they are missing. Idempotent and safe to run
    /// from many processes at once (serialised by an advisory lock);
    /// records the schema version.
    public func createSchema() async throws(PostgresStateError) {
        let connection = try await connectOrThrow()
        do throws(PostgresStateError) {
            try await Self.createSchema(on: connection, logger: logger, timeout: configuration.connectTimeout)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }

    static func createSchema(on connection: PostgresConnection, logger: Logger, timeout: Duration) async throws(PostgresStateError) {
        let statements: [PostgresQuery] = [
            "BEGIN",
            "SELECT pg_advisory_xact_lock(7263554351)",
            """
            CREATE TABLE IF NOT EXISTS retry_policy_schema (
                id integer PRIMARY KEY CHECK (id = 1),
                version integer NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_budget (
                key text PRIMARY KEY,
                capacity integer NOT NULL CHECK (capacity >= 0),
                tokens integer NOT NULL CHECK (tokens >= 0),
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_cooldown (
                key text PRIMARY KEY,
                until_ns bigint NOT NULL,
                kind text NOT NULL,
                status integer,
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_breaker (
                key text PRIMARY KEY,
                opening bigint NOT NULL,
                state text NOT NULL CHECK (state IN ('open', 'closed')),
                until_ns bigint NOT NULL,
                openings integer NOT NULL CHECK (openings >= 0),
                probes integer NOT NULL DEFAULT 0 CHECK (probes >= 0),
                successes integer NOT NULL DEFAULT 0 CHECK (successes >= 0),
                probes_until_ns bigint NOT NULL DEFAULT 0,
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_ratio (
                key text PRIMARY KEY,
                slots bigint[] NOT NULL,
                amounts bigint[] NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            "INSERT INTO retry_policy_schema (id, version) VALUES (1, \(schemaVersion)) ON CONFLICT (id) DO NOTHING",
            "COMMIT",
        ]
        do {
            for statement in statements { _ = try await run(statement, on: connection, logger: logger, timeout: timeout) }
        } catch {
            _ = try? await run("ROLLBACK", on: connection, logger: logger, timeout: timeout)
            throw .queryFailed(describe(error))
        }
    }

    static func verifySchema(on connection: PostgresConnection, logger: Logger, timeout: Duration) async throws(PostgresStateError) {
        do {
            let query: PostgresQuery = """
                SELECT to_regclass('retry_policy_schema') IS NOT NULL,
                       to_regclass('retry_policy_budget') IS NOT NULL,
                       to_regclass('retry_policy_cooldown') IS NOT NULL,
                       to_regclass('retry_policy_breaker') IS NOT NULL,
                       to_regclass('retry_policy_ratio') IS NOT NULL
                """
            let rows = try await run(query, on: connection, logger: logger, timeout: timeout)
            guard let row = rows.first else { throw PostgresStateError.queryFailed("no answer to the schema check") }
            let (schema, budget, cooldown, breaker, ratio) = try row.decode((Bool, Bool, Bool, Bool, Bool).self)
            if !schema { throw PostgresStateError.schemaMissing("retry_policy_schema") }
            if !budget { throw PostgresStateError.schemaMissing("retry_policy_budget") }
            if !cooldown { throw PostgresStateError.schemaMissing("retry_policy_cooldown") }
            if !breaker { throw PostgresStateError.schemaMissing("retry_policy_breaker") }
            // Added after 1.0.0 without a new version, as the breaker's
            // table was: older stores ignore it; a database made by one
            // gets it from createSchema().
            if !ratio { throw PostgresStateError.schemaMissing("retry_policy_ratio") }
            let versionRows = try await run(
                "SELECT version FROM retry_policy_schema WHERE id = 1", on: connection, logger: logger, timeout: timeout)
            let version = try versionRows.first?.decode(Int.self) ?? 0
            if version > schemaVersion { throw PostgresStateError.schemaTooNew(found: version, supported: schemaVersion) }
        } catch let error as PostgresStateError {
            throw error
        } catch {
            throw .queryFailed(describe(error))
        }
    }
}
#endif
