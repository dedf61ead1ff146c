#pragma once

#include "statustypes.h"
#include "timerule.h"

#include <QByteArray>

namespace leader::console {

// The status table as an operator pastes it into a ticket: every column of leader_status (state
// as the server writes it), the last tick's details and the hour's counts (migration 0184), each
// role's backlog (0186), and whether its holder is outside the registry and its counts ours only
// (0189), times in ISO 8601 with the offset of zone, with the database time the poll was taken
// at. What the schema lacks is empty (CSV) or null (JSON), never 0 or false.
QByteArray statusToCsv(const StatusSnapshot &snapshot, TimeZoneMode zone = TimeZoneMode::Utc);
QByteArray statusToJson(const StatusSnapshot &snapshot, TimeZoneMode zone = TimeZoneMode::Utc);

} // namespace leader::console
