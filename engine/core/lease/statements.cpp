#include "statements.h"

#include "constants.h"
#include "pg/connection.h"

#include <array>
#include <charconv>

namespace leader::lease {

namespace {

// The token is the greater of the row's next and the database clock in epoch milliseconds, so a
// promoted standby that lost the primary's last ACQUIREs still issues tokens above every one the
// primary handed out, as long as the two clocks differ by less than the failover took
// (docs/lease-runtime.md, amendment 2026-12-03). A pause whose paused_until has passed counts as
// none: the claim clears it, and migration 0177's trigger logs the expiry at paused_until.
//
// A held row whose holder's marker lock nobody holds any more, on the incarnation it was seen
// held on, is taken before its expiry (amendment 2026-12-04) while the role's early take is on
// (migration 0180): a shared try-lock is granted only when no session holds the key exclusively.
// The marker tested is the one the row names now: a holder that repaired its marker within the
// contender's grace (amendment 2026-12-05) names a new, held key, or none. This holder's own key
// ($5) is recorded only when the same test finds it held and the early take is on, and then
// announced, so that contenders wait for its end from this instant on. Without a claim, the second
// branch names the live holder's marker so that the caller can wait for its death (DeathWatch).
// took_over says which of the three ways the row was found, for the console to tell a takeover
// from a hand-over.
constexpr std::string_view AcquireSql = R"sql(
WITH claimed AS (
INSERT INTO leader_leases AS l (role, holder_token, holder_id, acquired_at, expires_at,
                                holder_session, holder_session_incarnation/*token column*/)
VALUES ($1, (extract(epoch FROM now()) * 1000)::bigint, $2, now(),
        now() + $4::bigint * interval '1 millisecond',
        CASE WHEN NOT pg_try_advisory_xact_lock_shared($5::bigint) THEN $5::bigint END,
        leader_ext.leader_server_incarnation()/*token value*/)
ON CONFLICT (role) DO UPDATE
   SET holder_token = greatest(l.holder_token + 1, (extract(epoch FROM now()) * 1000)::bigint),
       holder_id = EXCLUDED.holder_id,
       acquired_at = now(),
       expires_at = now() + $4::bigint * interval '1 millisecond',
       paused_at = NULL, paused_by = NULL, pause_reason = NULL, paused_until = NULL,
       holder_session = CASE WHEN l.early_take THEN EXCLUDED.holder_session END,
       holder_session_incarnation = EXCLUDED.holder_session_incarnation,/*token set*/
       took_over = CASE WHEN l.holder_id IS NULL THEN NULL
                        WHEN l.expires_at <= now() THEN 'expired'
                        ELSE 'session_ended' END
       /*handover set*/
 WHERE (l.paused_at IS NULL OR l.paused_until <= now())
   AND (l.expires_at IS NULL OR l.expires_at <= now()
        OR (l.early_take
            AND l.holder_session IS NOT NULL/*token take*/
            AND l.holder_session_incarnation = leader_ext.leader_server_incarnation()
            AND pg_try_advisory_xact_lock_shared(l.holder_session)))
   AND (l.last_tick_ended_at IS NULL
        OR l.last_tick_ended_at <= now() - $3::bigint * interval '1 millisecond')
   AND (l.not_before IS NULL OR l.not_before <= now())
   /*handover where*/
RETURNING l.role, l.holder_token, l.holder_session, l.holder_session_incarnation,
          now() AS now, extract(epoch FROM now()) AS epoch
)
SELECT true, holder_token, now, epoch, holder_session, NULL::bigint,
       CASE WHEN holder_session IS NOT NULL
            THEN pg_notify('leader_leases', format('held %s %s %s', role, holder_session,
                                                   holder_session_incarnation)) END
  FROM claimed
UNION ALL
SELECT false, NULL, NULL, NULL, l.holder_session, l.holder_session_incarnation, NULL
  FROM leader_leases l
 WHERE l.role = $1 AND NOT EXISTS (SELECT FROM claimed)
   AND l.holder_id <> $2 AND l.expires_at > now() AND l.early_take/*token take*/
   AND l.holder_session_incarnation = leader_ext.leader_server_incarnation()
)sql";

// Proves the holder id as well as the token: a token is this holder's only if both match.
// The marker as ACQUIRE records it: $5 only while its lock is found held and the early take is on;
// a NULL $5 un-names the marker. The marker recorded is returned: the holder protects its tick
// only while its row names one.
constexpr std::string_view RenewSql = R"sql(
UPDATE leader_leases
   SET expires_at = now() + $4::bigint * interval '1 millisecond',
       holder_session = CASE WHEN early_take AND NOT pg_try_advisory_xact_lock_shared($5::bigint)
                             THEN $5::bigint END,
       holder_session_incarnation = leader_ext.leader_server_incarnation()/*token renew*/
 WHERE role = $1 AND holder_token = $2 AND holder_id = $3
RETURNING now(), extract(epoch FROM now()), holder_session /*handover returning*/
)sql";

// With extension 0185 (leader_ext.leader_handover) the statements above gain the handover,
// spliced in at their comments. ACQUIRE clears the request with the rest of the row, and refuses
// a contender the request does not prefer while the preference is fresh: the request is this
// row's (no ACQUIRE since: handover_token = holder_token) and PreferFor has not passed since the
// later of the handover and the moment the role became due for this contender (its last completed
// tick's end plus the interval, and not_before). The preferred contender is handover_to; without
// one, anyone but the holder that was asked. (Deleted once: tst_handover's
// preferredReplicaAcquiresOthersAreRefused failed, a contender that was not preferred took the role
// at once.) RENEW tells the holder whether its tick is asked to hand over.
constexpr std::string_view AcquireHandoverSet = R"sql(,
       handover_token = NULL, handover_at = NULL, handover_by = NULL, handover_reason = NULL,
       handover_from = NULL, handover_to = NULL)sql";
constexpr std::string_view AcquireHandoverWhere = R"sql(
   AND (l.handover_token IS DISTINCT FROM l.holder_token
        OR CASE WHEN l.handover_to IS NOT NULL THEN l.handover_to = $2
                ELSE l.handover_from IS DISTINCT FROM $2 END
        OR greatest(l.handover_at, l.last_tick_ended_at + $3::bigint * interval '1 millisecond',
                    l.not_before)
           <= now() - $6::bigint * interval '1 millisecond'))sql";
constexpr std::string_view RenewHandoverReturning
        = ", coalesce(handover_token = $2, false) AS handover";

// With extension 0189 a marker names one lease: each statement that writes holder_session also
// writes holder_session_token, the token it was written for, and the early take (and the live
// holder's marker a refused ACQUIRE returns) requires the two to match. The database drops a
// marker any other writer leaves behind (0189's trigger); the comparison here also holds for a row
// written before it. (Deleted once: tst_leasesql's earlyTakeTakesOnlyTheLeaseItsMarkerNames failed,
// the contender took the live lease of an ADR-literal holder.)
constexpr std::string_view AcquireTokenColumn = ", holder_session_token";
constexpr std::string_view AcquireTokenValue = ", (extract(epoch FROM now()) * 1000)::bigint";
constexpr std::string_view AcquireTokenSet = R"sql(
       holder_session_token = greatest(l.holder_token + 1,
                                       (extract(epoch FROM now()) * 1000)::bigint),)sql";
constexpr std::string_view TokenTake = " AND l.holder_session_token = l.holder_token";
constexpr std::string_view RenewTokenSet = ", holder_session_token = $2";

// Each comment the shape does not fill is removed.
std::string spliced(std::string_view sql, std::string_view marker, std::string_view clause)
{
    std::string text(sql);
    const std::string comment = "/*" + std::string(marker) + "*/";
    for (auto at = text.find(comment); at != std::string::npos; at = text.find(comment, at))
        text.replace(at, comment.size(), clause);
    return text;
}

constexpr std::size_t ShapeCount = 8;

std::size_t shapeIndex(StatementShape shape)
{
    return (shape.handovers ? 1 : 0) + (shape.markerTokens ? 2 : 0)
           + (shape.handoversClearedByDatabase ? 4 : 0);
}

StatementShape shapeAt(std::size_t index)
{
    return {(index & 1) != 0, (index & 2) != 0, (index & 4) != 0};
}

std::string acquireText(StatementShape shape)
{
    std::string text(AcquireSql);
    text = spliced(text, "handover set",
                   shape.handovers && !shape.handoversClearedByDatabase ? AcquireHandoverSet : "");
    text = spliced(text, "handover where", shape.handovers ? AcquireHandoverWhere : "");
    text = spliced(text, "token column", shape.markerTokens ? AcquireTokenColumn : "");
    text = spliced(text, "token value", shape.markerTokens ? AcquireTokenValue : "");
    text = spliced(text, "token set", shape.markerTokens ? AcquireTokenSet : "");
    return spliced(text, "token take", shape.markerTokens ? TokenTake : "");
}

std::string renewText(StatementShape shape)
{
    std::string text(RenewSql);
    text = spliced(text, "handover returning", shape.handovers ? RenewHandoverReturning : "");
    return spliced(text, "token renew", shape.markerTokens ? RenewTokenSet : "");
}

template<typename Text>
std::array<std::string, ShapeCount> everyShape(Text text)
{
    std::array<std::string, ShapeCount> texts;
    for (std::size_t index = 0; index < ShapeCount; ++index)
        texts[index] = text(shapeAt(index));
    return texts;
}

const std::string &acquireSql(StatementShape shape)
{
    static const std::array<std::string, ShapeCount> texts = everyShape(acquireText);
    return texts[shapeIndex(shape)];
}

const std::string &renewSql(StatementShape shape)
{
    static const std::array<std::string, ShapeCount> texts = everyShape(renewText);
    return texts[shapeIndex(shape)];
}

// $3 is the outcome; $4 the role's interval; $5 the cap on a lost tick's cooldown; $6 how long
// after the tick ended this attempt was sent (a retried RELEASE keeps the cooldown anchored at
// the tick's end); $7 the holder id. The NOTIFY is a hint for idle contenders (WakeListener),
// sent only when the row was released and only at commit; correctness never depends on it.
constexpr std::string_view ReleaseSql = R"sql(
WITH released AS (
UPDATE leader_leases
   SET holder_id = NULL,
       acquired_at = NULL,
       expires_at = NULL,
       holder_session = NULL,
       holder_session_incarnation = NULL,
       last_tick_ended_at = CASE WHEN $3 = 'completed' THEN now() ELSE last_tick_ended_at END,
       last_tick_holder = CASE WHEN $3 = 'completed' THEN holder_id ELSE last_tick_holder END,
       not_before = CASE $3
                        WHEN 'failed' THEN now() + greatest(0, $4::bigint - $6::bigint)
                                                   * interval '1 millisecond'
                        WHEN 'lost' THEN now() + greatest(0, least($4::bigint, $5::bigint)
                                                             - $6::bigint)
                                                 * interval '1 millisecond'
                    END
 WHERE role = $1 AND holder_token = $2 AND holder_id = $7
RETURNING role
)
SELECT now(), extract(epoch FROM now()), pg_notify('leader_leases', role) FROM released
)sql";

constexpr std::string_view RecordTickSql
        = "SELECT leader_ext.leader_tick_record($1, $2, $3, $4, $5, $6, $7, $8)";

// The ADR's own functions. With extension 0176 they send the wake NOTIFY themselves, so every
// caller, psql and the console included, wakes holders and idle runners alike; without it a holder
// sees the pause at its next heartbeat RENEW.
constexpr std::string_view PauseSql = "SELECT leader_pause($1, $2, $3)";
constexpr std::string_view UnpauseSql = "SELECT leader_unpause($1)";

pg::Param sessionParam(std::optional<std::int64_t> session)
{
    return session ? pg::Param(*session) : pg::Param(nullptr);
}

} // namespace

std::optional<HeldAnnouncement> parseHeldAnnouncement(std::string_view payload)
{
    constexpr std::string_view Prefix = "held ";
    if (!payload.starts_with(Prefix))
        return std::nullopt;
    payload.remove_prefix(Prefix.size());
    const auto space = payload.find(' ');
    if (space == std::string_view::npos || space == 0)
        return std::nullopt;
    HeldAnnouncement held{std::string(payload.substr(0, space)), {}};
    const char *next = payload.data() + space + 1;
    const char *const end = payload.data() + payload.size();
    auto parsed = std::from_chars(next, end, held.holder.key);
    if (parsed.ec != std::errc() || parsed.ptr == end || *parsed.ptr != ' ')
        return std::nullopt;
    parsed = std::from_chars(parsed.ptr + 1, end, held.holder.incarnation);
    if (parsed.ec != std::errc() || parsed.ptr != end)
        return std::nullopt;
    return held;
}

std::optional<Acquired> acquire(pg::Connection &connection, std::string_view role,
                                std::string_view holderId, std::chrono::milliseconds interval,
                                std::optional<std::int64_t> session,
                                std::optional<HolderSession> *heldBy, StatementShape shape)
{
    const pg::Result result
            = shape.handovers ? connection.exec("acquire", acquireSql(shape),
                                                {role, holderId, interval.count(), LeaseTTL.count(),
                                                 sessionParam(session),
                                                 static_cast<std::int64_t>(PreferFor.count())},
                                                StatementTimeout)
                              : connection.exec("acquire", acquireSql(shape),
                                                {role, holderId, interval.count(), LeaseTTL.count(),
                                                 sessionParam(session)},
                                                StatementTimeout);
    if (heldBy)
        heldBy->reset();
    if (result.rows() == 0)
        return std::nullopt;
    if (!result.toBool(0, 0)) {
        if (heldBy && !result.isNull(0, 4))
            *heldBy = HolderSession{result.toInt64(0, 4), result.toInt64(0, 5)};
        return std::nullopt;
    }
    return Acquired{result.toInt64(0, 1),
                    DatabaseNow{std::string(result.text(0, 2)), result.toDouble(0, 3)},
                    result.isNull(0, 4) ? 0 : result.toInt64(0, 4)};
}

bool handoverColumnsGone(const pg::Error &error)
{
    return error.sqlstate() == pg::sqlstate::UndefinedColumn
           && std::string_view(error.what()).find("handover_") != std::string_view::npos;
}

bool handoverColumnsClosed(const pg::Error &error)
{
    return error.sqlstate() == pg::sqlstate::InsufficientPrivilege;
}

bool markerTokenColumnGone(const pg::Error &error)
{
    return error.sqlstate() == pg::sqlstate::UndefinedColumn
           && std::string_view(error.what()).find("holder_session_token") != std::string_view::npos;
}

std::optional<Renewed> renew(pg::Connection &connection, std::string_view role, std::int64_t token,
                             std::string_view holderId, const pg::StatementWindow &window,
                             std::optional<std::int64_t> session, StatementShape shape)
{
    const pg::Result result
            = connection.exec("renew", renewSql(shape),
                              {role, token, holderId, LeaseTTL.count(), sessionParam(session)},
                              StatementTimeout, window);
    if (result.rows() == 0)
        return std::nullopt;
    return Renewed{DatabaseNow{std::string(result.text(0, 0)), result.toDouble(0, 1)},
                   result.isNull(0, 2) ? 0 : result.toInt64(0, 2),
                   shape.handovers && result.toBool(0, 3)};
}

std::optional<DatabaseNow> release(pg::Connection &connection, const Release &tick)
{
    const pg::Result result
            = connection.exec("release", ReleaseSql,
                              {tick.role, tick.token, nameOf(tick.outcome), tick.interval.count(),
                               LostCooldownCap.count(), tick.sinceEnd.count(), tick.holderId},
                              StatementTimeout);
    if (result.rows() == 0)
        return std::nullopt;
    return DatabaseNow{std::string(result.text(0, 0)), result.toDouble(0, 1)};
}

bool recordTick(pg::Connection &connection, const TickRecord &tick,
                std::chrono::milliseconds timeout)
{
    const pg::Param reason = tick.lossReason && tick.outcome == Outcome::Lost
                                     ? pg::Param(nameOf(*tick.lossReason))
                                     : pg::Param(nullptr);
    const pg::Result result = connection.exec(
            "record tick", RecordTickSql,
            {tick.role, tick.token, tick.holderId, nameOf(tick.outcome), reason,
             static_cast<std::int64_t>(tick.duration.count()), tick.failedStep, tick.error},
            timeout);
    return result.toBool(0, 0);
}

std::string pause(pg::Connection &connection, std::string_view role, std::string_view by,
                  std::string_view reason)
{
    const pg::Result result
            = connection.exec("pause", PauseSql, {role, by, reason}, StatementTimeout);
    return std::string(result.text(0, 0));
}

bool unpause(pg::Connection &connection, std::string_view role)
{
    const pg::Result result = connection.exec("unpause", UnpauseSql, {role}, StatementTimeout);
    return result.toBool(0, 0);
}

} // namespace leader::lease
