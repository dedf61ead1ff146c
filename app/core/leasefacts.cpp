#include "leasefacts.h"

#include "lease/constants.h"
#include "lease/defaultwho.h"
#include "lease/roles.h"

#include <algorithm>
#include <chrono>

namespace leader::console {

namespace {

static_assert(lease::Role(LeaseRole::Billing) == lease::Role::Billing
              && lease::Role(LeaseRole::Dunning) == lease::Role::Dunning
              && lease::Role(LeaseRole::WebhookOutbox) == lease::Role::WebhookOutbox
              && lease::Role(LeaseRole::EmailOutbox) == lease::Role::EmailOutbox
              && lease::Role(LeaseRole::WebhookDelivery) == lease::Role::WebhookDelivery);

QString toQString(std::string_view text)
{
    return QString::fromLatin1(text.data(), qsizetype(text.size()));
}

} // namespace

QStringList leaseRoles()
{
    QStringList roles;
    for (const std::string_view role : lease::Roles)
        roles.append(toQString(role));
    return roles;
}

QString leaseRoleName(LeaseRole role)
{
    return toQString(lease::nameOf(lease::Role(role)));
}

QString longestLeaseRole()
{
    const auto longest = std::max_element(
            lease::Roles.begin(), lease::Roles.end(),
            [](std::string_view a, std::string_view b) { return a.size() < b.size(); });
    return toQString(*longest);
}

QHash<QString, double> defaultRoleIntervals()
{
    QHash<QString, double> intervals;
    for (const lease::RoleFacts &facts : lease::RoleTable)
        intervals.insert(toQString(facts.name), double(facts.defaultInterval.count()));
    return intervals;
}

qint64 leaseTtlMs()
{
    return std::chrono::milliseconds(lease::LeaseTTL).count();
}

QString defaultWho()
{
    return QString::fromStdString(lease::defaultWho());
}

} // namespace leader::console
