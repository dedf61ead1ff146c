#include "outsideholders.h"

#include "lease/draincontrol.h"
#include "pg/connection.h"
#include "pg/conninfo.h"
#include "pg/error.h"

#include <chrono>
#include <string>
#include <vector>

namespace leader::console {

namespace {

constexpr std::chrono::milliseconds ConnectTimeout{5000};

QString qtext(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

template<typename Read>
OutsideHolders readOutside(const QString &conninfo, std::stop_token stop, Read read)
{
    const std::string url = conninfo.toStdString();
    OutsideHolders result;
    try {
        pg::Connection connection(
                {.url = url, .applicationName = "leader-console", .stop = std::move(stop)});
        connection.open(ConnectTimeout);
        for (const lease::OutsideHolder &holder : read(connection))
            result.holders.append({qtext(holder.role), qtext(holder.holder),
                                   holder.lastSeenAgeSeconds, holder.holdsNow,
                                   holder.heldForSeconds, holder.lastTickSeconds});
    } catch (const pg::Error &error) {
        result.error = qtext(pg::redactSecrets(pg::explain(error), url));
    }
    return result;
}

} // namespace

OutsideHolders readOutsideHoldersOfRole(const QString &conninfo, std::stop_token stop,
                                        const QString &role)
{
    return readOutside(conninfo, std::move(stop), [&role](pg::Connection &connection) {
        return lease::outsideHolders(connection, role.toStdString());
    });
}

OutsideHolders readOutsideHoldersOfReplica(const QString &conninfo, std::stop_token stop,
                                           const QString &replica)
{
    return readOutside(conninfo, std::move(stop), [&replica](pg::Connection &connection) {
        return lease::outsideHoldersOfReplica(connection, replica.toStdString());
    });
}

} // namespace leader::console
