#pragma once

// ADR-114's own statements, as the product's replicas run them (tests/fixtures/adr-replica runs
// the same in Go; its README says why each differs from the ADR's text where it does): run as the
// app login by a holder id the registry does not know, they make a holder outside the registry
// (extension 0189).

#include "pg/connection.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leader::test {

inline constexpr std::string_view AdrHolderId = "adr-host:4242:0000abcd";

// ADR-114's ACQUIRE with the 0175 predicate; its only change from the ADR's text is the table
// name before each column of the DO UPDATE (unqualified, holder_token is ambiguous there).
inline constexpr std::string_view AdrAcquire = R"sql(
INSERT INTO leader_leases (role, holder_token, holder_id, acquired_at, expires_at)
VALUES ($1, (extract(epoch FROM now()) * 1000)::bigint, $2, now(), now() + interval '10 seconds')
ON CONFLICT (role) DO UPDATE
   SET holder_token = leader_leases.holder_token + 1, holder_id = $2, acquired_at = now(),
       expires_at = now() + interval '10 seconds'
 WHERE leader_leases.paused_at IS NULL
   AND (leader_leases.expires_at IS NULL OR leader_leases.expires_at <= now())
   AND (leader_leases.last_tick_ended_at IS NULL
        OR leader_leases.last_tick_ended_at <= now() - $3::interval)
   AND (leader_leases.not_before IS NULL OR leader_leases.not_before <= now())
RETURNING holder_token, extract(epoch FROM now())
)sql";
// The ADR describes RELEASE in prose: it clears the holder, stamps the tick only if it completed
// and proves the lease as RENEW does.
inline constexpr std::string_view AdrRelease = R"sql(
UPDATE leader_leases
   SET holder_id = NULL, acquired_at = NULL, expires_at = NULL,
       last_tick_ended_at = CASE WHEN $3 THEN now() ELSE last_tick_ended_at END,
       last_tick_holder = CASE WHEN $3 THEN holder_id ELSE last_tick_holder END
 WHERE role = $1 AND holder_token = $2 AND holder_id IS NOT NULL
)sql";

inline constexpr std::string_view AdrRenew = R"sql(
UPDATE leader_leases SET expires_at = now() + interval '10 seconds'
 WHERE role = $1 AND holder_token = $2 AND holder_id IS NOT NULL
RETURNING now()
)sql";

// The ADR's ACQUIRE of role by holder (interval 0); its token, or nullopt when refused.
inline std::optional<std::int64_t> adrAcquire(pg::Connection &app, std::string_view role,
                                              std::string_view holder = AdrHolderId)
{
    const pg::Result result = app.exec("adr acquire", AdrAcquire, {role, holder, "0 seconds"},
                                       std::chrono::seconds(5));
    if (result.rows() == 0)
        return std::nullopt;
    return result.toInt64(0, 0);
}

// Its RELEASE of a completed tick.
inline void adrRelease(pg::Connection &app, std::string_view role, std::int64_t token)
{
    app.exec("adr release", AdrRelease, {role, std::to_string(token), "true"},
             std::chrono::seconds(5));
}

// Its RENEW: another 10 s; false when the lease is not its any more.
inline bool adrRenew(pg::Connection &app, std::string_view role, std::int64_t token)
{
    return app.exec("adr renew", AdrRenew, {role, std::to_string(token)}, std::chrono::seconds(5))
                   .rows()
           == 1;
}

// One whole tick of role by holder, so that the next ACQUIRE has a last tick to be measured by.
inline bool adrTick(pg::Connection &app, std::string_view role,
                    std::string_view holder = AdrHolderId)
{
    const std::optional<std::int64_t> token = adrAcquire(app, role, holder);
    if (token)
        adrRelease(app, role, *token);
    return token.has_value();
}

} // namespace leader::test
