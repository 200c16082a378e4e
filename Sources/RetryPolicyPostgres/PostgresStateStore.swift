#if Postgres  // the trait; without it this module is empty
import RetryPolicyCore
import PostgresNIO
#endif
