#include "handovercontrol.h"

#include "constants.h"
#include "pg/connection.h"

namespace leader::lease {

namespace {

constexpr std::string_view HandoverSql = R"sql(
SELECT h.token,
       to_char(h.handover_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       coalesce(h.from_holder, ''), coalesce(h.to_holder, '')
  FROM leader_ext.leader_handover($1, $2, $3, $4) AS h
)sql";

// A holder that acquired after the handover has a greater token. It is read while it holds: the
// row keeps acquired_at only until its RELEASE.
constexpr std::string_view SuccessorSql = R"sql(
SELECT l.holder_id,
       extract(epoch FROM l.acquired_at - $3::timestamptz)
  FROM leader_leases AS l
 WHERE l.role = $1 AND l.holder_token > $2 AND l.holder_id IS NOT NULL
   AND l.holder_id IS DISTINCT FROM nullif($4::text, '')
   AND ($5::text = '' OR l.holder_id = $5::text)
)sql";

} // namespace

HandoverRecord handOver(pg::Connection &connection, std::string_view role, std::string_view by,
                        std::string_view reason, const std::optional<std::string> &toReplica)
{
    const pg::Result row = connection.exec(
            "handover", HandoverSql,
            {role, by, reason,
             toReplica ? pg::Param(std::string_view(*toReplica)) : pg::Param(nullptr)},
            StatementTimeout);
    HandoverRecord record;
    record.token = row.toInt64(0, 0);
    record.at = std::string(row.text(0, 1));
    record.fromHolder = std::string(row.text(0, 2));
    record.toHolder = std::string(row.text(0, 3));
    return record;
}

std::optional<HandoverSuccessor>
handoverSuccessor(pg::Connection &connection, std::string_view role, const HandoverRecord &handover)
{
    const pg::Result row = connection.exec("handover successor", SuccessorSql,
                                           {role, handover.token, std::string_view(handover.at),
                                            std::string_view(handover.fromHolder),
                                            std::string_view(handover.toHolder)},
                                           StatementTimeout);
    if (row.rows() == 0)
        return std::nullopt;
    return HandoverSuccessor{std::string(row.text(0, 0)), row.toDouble(0, 1)};
}

} // namespace leader::lease
