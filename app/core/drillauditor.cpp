#include "drillauditor.h"

#include "demo/auditor.h"
#include "pg/connection.h"

#include <chrono>
#include <exception>
#include <string>

namespace leader::console {

namespace {

using namespace std::chrono_literals;

constexpr auto StatementTimeout = 10s;

QString firstLine(const char *text)
{
    const QString line = QString::fromUtf8(text);
    return line.left(line.indexOf(QLatin1Char('\n'))).trimmed();
}

QString qtext(const std::string &text)
{
    return QString::fromStdString(text);
}

} // namespace

void DrillAuditor::audit(const ConnectionProfile &database, const QDateTime &since,
                         std::stop_token stop)
{
    const std::string conninfo = database.conninfo().toStdString();
    const std::string from = isoUtc(since).toStdString();
    DrillAudit result;
    try {
        pg::Connection connection(
                {.url = conninfo, .applicationName = "leader-console drill", .stop = stop});
        connection.open();
        result.serverVersion = qtext(std::string(
                connection.exec("server version", "SHOW server_version", {}, StatementTimeout)
                        .text(0, 0)));
        const pg::Result refusals = connection.exec(
                "fence refusals",
                "SELECT role, count(*) FROM fence_refusals WHERE refused_at >= $1::timestamptz "
                "GROUP BY role ORDER BY role",
                {from.empty() ? pg::Param(nullptr) : pg::Param(from)}, StatementTimeout);
        for (int row = 0; row < refusals.rows(); ++row)
            result.refusals.insert(qtext(std::string(refusals.text(row, 0))),
                                   refusals.toInt64(row, 1));
        for (const demo::InvariantResult &invariant : demo::audit(connection).invariants) {
            QStringList samples;
            for (const std::string &sample : invariant.samples)
                samples.append(qtext(sample));
            result.invariants.append({qtext(invariant.role), qtext(invariant.name), invariant.holds,
                                      invariant.offending, samples, invariant.fencing});
        }
    } catch (const std::exception &error) {
        result.error = firstLine(error.what());
    }
    // A cancelled audit's drill has ended already; what it read is of no use to anyone.
    if (!stop.stop_requested())
        Q_EMIT audited(result);
}

} // namespace leader::console
