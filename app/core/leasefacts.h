#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace leader::console {

// The engine's lease facts the models and widgets need, in Qt types: only core's sources include
// engine headers (console_core links the engine privately), so models/ and ui/ ask here.

// The five singleton roles, mirroring lease::Role (leasefacts.cpp checks the two agree).
enum class LeaseRole { Billing, Dunning, WebhookOutbox, EmailOutbox, WebhookDelivery };

// The five singleton roles' names, in the engine's order (lease::RoleTable).
QStringList leaseRoles();
QString leaseRoleName(LeaseRole role);
// The longest role name, which a role column or label is sized for.
QString longestLeaseRole();
// Each role's default interval in seconds (the demo's: lease::RoleTable), by role name.
QHash<QString, double> defaultRoleIntervals();
// How long a lease lasts without a renewal (lease::LeaseTTL), in milliseconds.
qint64 leaseTtlMs();
// Who a pause or an unpause is recorded as when the operator names nobody: leaderctl's rule
// (lease::defaultWho()), so the pause log names the same person whichever was used.
QString defaultWho();

} // namespace leader::console
