#include "metricsserver.h"

// MetricsServer where no cpp-httplib library is at hand for the target: the Windows cross build
// (Debian's libcpp-httplib-dev is a header declaring what a Linux shared library implements).
// leader-replica refuses --metrics-port there (LEADER_REPLICA_METRICS=0), so none of this serves.

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
