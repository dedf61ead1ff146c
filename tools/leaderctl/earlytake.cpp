#include "earlytake.h"

#include "output.h"
#include "pg/connection.h"
#include "schema/features.h"

#include <chrono>
#include <iostream>

namespace leaderctl {

namespace {

using namespace std::chrono_literals;

// The old value comes from the row as the UPDATE found it locked, so two operators flipping at
// once each see what their own statement changed.
constexpr std::string_view EarlyTakeSql = R"sql(
UPDATE leader_leases AS l
   SET early_take = $1::boolean
  FROM leader_leases AS before
 WHERE l.role = before.role AND l.role = ANY($2::text[])
RETURNING l.role, before.early_take
)sql";

std::string arrayLiteral(const std::vector<std::string> &roles)
{
    std::string literal = "{";
    for (const std::string &role : roles)
        literal += (literal.size() > 1 ? "," : "") + role; // known role names: no quoting needed
    return literal + "}";
}

} // namespace

void earlyTake(leader::pg::Connection &connection, const std::vector<std::string> &roles, bool on)
{
    leader::schema::requireExtension(connection, leader::schema::probeFeatures(connection),
                                     "the early-take switch",
                                     leader::schema::Extension::EarlyTakeSwitch);
    const leader::pg::Result result = connection.exec(
            "early take", EarlyTakeSql, {on ? "true" : "false", arrayLiteral(roles)}, 5s);
    const char *now = on ? "on" : "off";
    for (int row = 0; row < result.rows(); ++row) {
        const bool was = result.toBool(row, 1);
        std::cout << "leaderctl: " << printable(result.text(row, 0)) << ": early take " << now
                  << (was == on ? " (it was already)" : "")
                  << (on ? "" : "; its leases end at their expiry from now on") << "\n";
    }
}

} // namespace leaderctl
