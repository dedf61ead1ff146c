#include "pauselogreader.h"

#include "pg/connection.h"
#include "pg/conninfo.h"
#include "pg/error.h"

namespace leader::monitor {

namespace {

// to_regclass returns NULL for a missing table instead of failing, so an older schema is told
// apart from a refused or broken read in one statement.
constexpr auto HasLogSql = "SELECT to_regclass('leader_pause_log') IS NOT NULL";

constexpr auto Unavailable
        = "pause log unavailable: migration 0177 not applied (run leaderctl migrate)";

} // namespace

PauseLogReader::PauseLogReader(std::string conninfo, std::stop_token stop,
                               std::chrono::milliseconds timeout)
    : m_conninfo(std::move(conninfo))
    , m_timeout(timeout)
    , m_connection(std::make_unique<pg::Connection>(pg::ConnectOptions{
              .url = m_conninfo, .applicationName = "leader-console", .stop = std::move(stop)}))
{}

PauseLogReader::~PauseLogReader() = default;

Outcome<PauseLog> PauseLogReader::read(const lease::PauseLogQuery &query)
{
    try {
        if (!m_connection->isOpen())
            m_connection->open(m_timeout);
        PauseLog log;
        if (!m_connection->exec("pause log present", HasLogSql, {}, m_timeout).toBool(0, 0)) {
            log.unavailable = Unavailable;
            return log;
        }
        log.entries = lease::pauseHistory(*m_connection, query);
        log.truncated = query.limit > 0 && int(log.entries.size()) >= query.limit;
        return log;
    } catch (const pg::Error &error) {
        m_connection->close();
        // The tools' one line (what failed, the SQLSTATE, what to do about a missing privilege
        // or an unreachable server): a History read needs none of StatusReader's reconnect logic.
        return Failure{pg::redactSecrets(pg::explain(error), m_conninfo), error.sqlstate(),
                       error.isTransport() || error.notStarted()};
    }
}

} // namespace leader::monitor
