#include "leasefacts.h"

#include "lease/constants.h"
#include "lease/defaultwho.h"
#include "lease/roles.h"

#include <chrono>

namespace leader::console {

QStringList leaseRoles()
{
    QStringList roles;
    for (const std::string_view role : lease::Roles)
        roles.append(QString::fromLatin1(role.data(), qsizetype(role.size())));
    return roles;
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
