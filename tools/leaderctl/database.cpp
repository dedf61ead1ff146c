#include "database.h"

namespace leaderctl {

leader::pg::Connection connect(const std::string &url)
{
    leader::pg::Connection connection({.url = url, .applicationName = "leaderctl"});
    connection.open();
    return connection;
}

} // namespace leaderctl
