#include "pauselogreader.h"

#include "pg/connection.h"
#include "pg/conninfo.h"
#include "pg/error.h"
#include "schema/features.h"

namespace leader::monitor {

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
        // Read first: a login that may not read leader_ext gets its refusal, not "needs the
        // extension", which the features probe would say for both.
        try {
            log.entries = lease::pauseHistory(*m_connection, query);
        } catch (const pg::Error &error) {
            if (error.sqlstate() != pg::sqlstate::UndefinedTable)
                throw;
            log.unavailable
                    = schema::extensionNeeded("the pause history", schema::Extension::PauseLog);
            return log;
        }
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
