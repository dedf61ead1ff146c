#include "record.h"

#include <chrono>
#include <cstdlib>

namespace chaosbench {

double wallClock()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
            .count();
}

std::string_view faultName(FaultKind kind)
{
    switch (kind) {
    case FaultKind::SigKill:
        return "sigkill";
    case FaultKind::SigTerm:
        return "sigterm";
    case FaultKind::SigStop:
        return "sigstop";
    case FaultKind::Freeze:
        return "freeze";
    case FaultKind::Sever:
        return "sever";
    case FaultKind::Slow:
        return "slow";
    case FaultKind::Panic:
        return "panic";
    case FaultKind::PgRestart:
        return "pg-restart";
    case FaultKind::PgCrash:
        return "pg-crash";
    case FaultKind::BouncerRestart:
        return "bouncer-restart";
    case FaultKind::BouncerReconnect:
        return "bouncer-reconnect";
    case FaultKind::Failover:
        return "failover";
    case FaultKind::IdleTimeout:
        return "idle-timeout";
    case FaultKind::Reaper:
        return "reaper";
    case FaultKind::IdleProxy:
        return "idle-proxy";
    case FaultKind::Partition:
        return "partition";
    }
    return "?";
}

bool isDatabaseFault(FaultKind kind)
{
    for (const FaultKind database : DatabaseFaultKinds) {
        if (kind == database)
            return true;
    }
    return false;
}

bool isSessionEvent(FaultKind kind)
{
    for (const FaultKind session : SessionEventKinds) {
        if (kind == session)
            return true;
    }
    return false;
}

std::string SlotSetup::describe() const
{
    std::string text = id + (path == Path::Direct ? " (direct" : " (PgBouncer");
    if (control)
        text += ", switchboard";
    if (skewSeconds != 0)
        text += std::string(", clock ") + (skewSeconds > 0 ? "+" : "\u2212")
                + std::to_string(std::abs(skewSeconds) / 3600) + " h";
    if (isolated)
        text += ", own network namespace";
    if (!killable)
        text += ", never killed";
    return text + ")";
}

} // namespace chaosbench
