#include "defaultwho.h"

#include "platform/process.h"

#include <cstdlib>
#include <optional>

namespace leader::lease {

namespace {

std::string loginName()
{
    for (const char *name : {"USER", "LOGNAME", "USERNAME"}) {
        if (const char *value = std::getenv(name); value && *value)
            return value;
    }
#ifndef _WIN32
    if (const std::optional<platform::Account> account
        = platform::accountOf(platform::effectiveUserId());
        account && !account->name.empty()) {
        return account->name;
    }
#endif
    return "operator";
}

} // namespace

std::string defaultWho()
{
    const std::string host = platform::hostName();
    return loginName() + "@" + host.substr(0, host.find('.'));
}

} // namespace leader::lease
