#pragma once

#include <QString>
#include <QStringList>

namespace leader::console {

// The engine's lease facts the models and widgets need, in Qt types: only core's sources include
// engine headers (console_core links the engine privately), so models/ and ui/ ask here.

// The five singleton roles, in the engine's order (lease::Roles).
QStringList leaseRoles();
// How long a lease lasts without a renewal (lease::LeaseTTL), in milliseconds.
qint64 leaseTtlMs();
// Who a pause or an unpause is recorded as when the operator names nobody: leaderctl's rule
// (lease::defaultWho()), so the pause log names the same person whichever was used.
QString defaultWho();

} // namespace leader::console
