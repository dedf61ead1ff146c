#include "secrets.h"

#include "pg/conninfo.h"

#include <cstdlib>
#include <stdexcept>

namespace bench {

void passwordsToEnvironment(const std::vector<std::string *> &urls)
{
    const char *inherited = std::getenv("PGPASSWORD");
    std::string password = inherited ? inherited : "";
    for (std::string *url : urls) {
        const std::string carried = leader::pg::passwordOf(*url);
        if (carried.empty())
            continue;
        if (!password.empty() && carried != password)
            throw std::invalid_argument(
                    "the database URLs (or they and PGPASSWORD) carry different passwords: leave "
                    "them out of the URLs and put them in a passfile (PGPASSFILE, mode 0600)");
        password = carried;
        *url = leader::pg::withoutPassword(*url);
    }
    if (!password.empty() && (!inherited || password != inherited))
        ::setenv("PGPASSWORD", password.c_str(), 1);
}

std::string redactUrls(std::string text, const std::vector<std::string *> &urls)
{
    for (const std::string *url : urls)
        text = leader::pg::redactSecrets(std::move(text), *url);
    return text;
}

std::string redactedUrl(const std::string &url)
{
    return leader::pg::redactSecrets(url, url);
}

} // namespace bench
