#include "statementclock.h"

#include <libpq-fe.h>

#include <mutex>
#include <optional>

namespace bench::scale {

namespace {

using Clock = std::chrono::steady_clock;

struct Pending
{
    Clock::time_point sentAt;
    StatementKind kind;
};

// The engine sends a statement and reads its results on one thread, one statement at a time.
thread_local std::optional<Pending> t_pending;

std::mutex g_mutex;
std::vector<StatementSample> g_samples;

// The engine's statements by their text (engine/core/lease/statements.cpp, engine/core/scheduler,
// engine/core/lease/replicaregistry.cpp).
StatementKind classify(std::string_view sql)
{
    const std::string_view head = sql.substr(0, 120);
    if (head.find("INSERT INTO leader_leases") != std::string_view::npos)
        return StatementKind::Acquire;
    if (head.find("SET expires_at = now()") != std::string_view::npos)
        return StatementKind::Renew;
    if (head.find("WITH released AS") != std::string_view::npos)
        return StatementKind::Release;
    if (head.find("paused_until IS NULL") != std::string_view::npos
        || head.find("leader_ext.leader_board(") != std::string_view::npos)
        return StatementKind::Read;
    if (head.find("leader_replica_") != std::string_view::npos)
        return StatementKind::Registry;
    return StatementKind::Other;
}

} // namespace

std::vector<StatementSample> statementSamples()
{
    const std::lock_guard lock(g_mutex);
    return g_samples;
}

} // namespace bench::scale

// The linker sends the engine's calls here (-Wl,--wrap=...); __real_ is libpq's own.
extern "C" {
int __real_PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                             const char *const *paramValues, const int *paramLengths,
                             const int *paramFormats, int resultFormat);
PGresult *__real_PQgetResult(PGconn *conn);

int __wrap_PQsendQueryParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
                             const char *const *paramValues, const int *paramLengths,
                             const int *paramFormats, int resultFormat)
{
    bench::scale::t_pending
            = bench::scale::Pending{bench::scale::Clock::now(), bench::scale::classify(command)};
    const int sent = __real_PQsendQueryParams(conn, command, nParams, paramTypes, paramValues,
                                              paramLengths, paramFormats, resultFormat);
    if (!sent)
        bench::scale::t_pending.reset();
    return sent;
}

PGresult *__wrap_PQgetResult(PGconn *conn)
{
    PGresult *result = __real_PQgetResult(conn);
    if (result && bench::scale::t_pending) {
        const auto took = bench::scale::Clock::now() - bench::scale::t_pending->sentAt;
        const ExecStatusType status = PQresultStatus(result);
        const bench::scale::StatementSample sample{
                .sentAt = bench::scale::t_pending->sentAt,
                .milliseconds = std::chrono::duration<float, std::milli>(took).count(),
                .kind = bench::scale::t_pending->kind,
                .failed = status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK};
        bench::scale::t_pending.reset();
        const std::lock_guard lock(bench::scale::g_mutex);
        bench::scale::g_samples.push_back(sample);
    }
    return result;
}
}
