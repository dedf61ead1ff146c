#include "metricsserver.h"

// MetricsServer for the Windows replica, which refuses --metrics-port (LEADER_REPLICA_METRICS=0,
// checked by scripts/windows-tools.sh), so none of this serves. metricsserver.cpp compiles there
// as well: serving /metrics on Windows is lifting that refusal.

namespace leader::tools {

class MetricsServer::Http final
{};

MetricsServer::MetricsServer(std::function<std::string()>) {}

MetricsServer::~MetricsServer() = default;

bool MetricsServer::bind(const std::string &, int)
{
    return false;
}

void MetricsServer::start() {}

void MetricsServer::stopListening() {}

void MetricsServer::join() {}

} // namespace leader::tools
