#pragma once

#include "statustypes.h"

#include <QByteArray>

namespace leader::console {

// The status table as an operator pastes it into a ticket: every column of leader_status, times
// in UTC ISO 8601, with the database time the poll was taken at.
QByteArray statusToCsv(const StatusSnapshot &snapshot);
QByteArray statusToJson(const StatusSnapshot &snapshot);

} // namespace leader::console
