#include "conninfo.h"

#include <libpq-fe.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <regex>
#include <vector>

namespace leader::pg {

namespace {

struct ConninfoDeleter
{
    void operator()(PQconninfoOption *options) const { PQconninfoFree(options); }
};
using ConninfoPtr = std::unique_ptr<PQconninfoOption, ConninfoDeleter>;

std::string envOr(const char *name, const std::string &fallback)
{
    const char *value = std::getenv(name);
    return value && *value ? value : fallback;
}

std::string percentDecoded(const std::string &text)
{
    std::string decoded;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size()
            && std::isxdigit(static_cast<unsigned char>(text[i + 1]))
            && std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
            decoded += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            decoded += text[i];
        }
    }
    return decoded;
}

ConninfoPtr parsed(const std::string &url)
{
    char *error = nullptr;
    ConninfoPtr options(PQconninfoParse(url.c_str(), &error));
    PQfreemem(error);
    return options;
}

std::string firstOf(const std::string &list)
{
    return list.substr(0, list.find(','));
}

std::string quoted(const std::string &value)
{
    std::string text = "'";
    for (const char c : value) {
        if (c == '\\' || c == '\'')
            text += '\\';
        text += c;
    }
    return text + "'";
}

} // namespace

std::string databaseUrlFrom(const std::string &commandLineValue)
{
    return commandLineValue.empty() ? envOr("DATABASE_URL", {}) : commandLineValue;
}

std::string describeTarget(const std::string &url)
{
    std::string host, port, user, dbname;
    char *error = nullptr;
    ConninfoPtr options(PQconninfoParse(url.empty() ? "" : url.c_str(), &error));
    PQfreemem(error);
    if (options) {
        for (PQconninfoOption *option = options.get(); option->keyword; ++option) {
            if (!option->val || !*option->val)
                continue;
            const std::string keyword = option->keyword;
            if (keyword == "host")
                host = option->val;
            else if (keyword == "hostaddr" && host.empty())
                host = option->val;
            else if (keyword == "port")
                port = option->val;
            else if (keyword == "user")
                user = option->val;
            else if (keyword == "dbname")
                dbname = option->val;
        }
    }
    host = host.empty() ? envOr("PGHOST", "localhost") : host;
    port = port.empty() ? envOr("PGPORT", "5432") : port;
    const char *login = std::getenv("USER");
    user = user.empty() ? envOr("PGUSER", login ? login : "") : user;
    dbname = dbname.empty() ? envOr("PGDATABASE", user) : dbname;
    std::string target = user.empty() ? std::string() : user + "@";
    target += host;
    target += ":" + port + "/" + dbname;
    return target;
}

Endpoint endpointOf(const std::string &url)
{
    std::string host, hostaddr, port;
    if (const ConninfoPtr options = parsed(url)) {
        for (PQconninfoOption *option = options.get(); option->keyword; ++option) {
            if (!option->val || !*option->val)
                continue;
            const std::string keyword = option->keyword;
            if (keyword == "host")
                host = firstOf(option->val);
            else if (keyword == "hostaddr")
                hostaddr = firstOf(option->val);
            else if (keyword == "port")
                port = firstOf(option->val);
        }
    }
    Endpoint endpoint;
    endpoint.host = !hostaddr.empty() ? hostaddr : !host.empty() ? host : envOr("PGHOST", {});
    if (endpoint.host.empty())
        endpoint.host = "/var/run/postgresql"; // libpq's default: the Unix-domain socket
    endpoint.unixSocket = endpoint.host.front() == '/' || endpoint.host.front() == '@';
    port = port.empty() ? envOr("PGPORT", "5432") : port;
    try {
        endpoint.port = std::stoi(port);
    } catch (const std::exception &) {
        endpoint.port = 5432;
    }
    return endpoint;
}

std::string throughAddress(const std::string &url, const std::string &address, int port)
{
    std::string conninfo;
    std::string host;
    if (const ConninfoPtr options = parsed(url)) {
        for (PQconninfoOption *option = options.get(); option->keyword; ++option) {
            if (!option->val || !*option->val)
                continue;
            const std::string keyword = option->keyword;
            if (keyword == "hostaddr" || keyword == "port")
                continue;
            if (keyword == "host") {
                host = firstOf(option->val);
                continue;
            }
            conninfo += keyword + "=" + quoted(option->val) + " ";
        }
    }
    if (host.empty())
        host = envOr("PGHOST", address);
    conninfo += "host=" + quoted(host) + " hostaddr=" + quoted(address)
                + " port=" + std::to_string(port);
    return conninfo;
}

std::string redactSecrets(std::string text, const std::string &url)
{
    std::vector<std::string> secrets;
    static const std::regex userinfo(R"(://[^:/@?#]*:([^@/?#]+)@)");
    static const std::regex keyword(R"(password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]+))",
                                    std::regex::icase);
    for (const std::regex *pattern : {&userinfo, &keyword}) {
        for (std::sregex_iterator it(url.begin(), url.end(), *pattern), end; it != end; ++it) {
            std::string secret = (*it)[1].str();
            if (secret.size() >= 2 && secret.front() == '\'' && secret.back() == '\'') {
                secret = secret.substr(1, secret.size() - 2);
                // libpq reads \' and \\ inside quotes as the character itself.
                std::string unescaped;
                for (std::size_t i = 0; i < secret.size(); ++i) {
                    if (secret[i] == '\\' && i + 1 < secret.size())
                        ++i;
                    unescaped += secret[i];
                }
                secrets.push_back(unescaped);
            }
            secrets.push_back(secret);
            secrets.push_back(percentDecoded(secret));
        }
    }
    if (const char *password = std::getenv("PGPASSWORD"))
        secrets.emplace_back(password);
    for (const std::string &secret : secrets) {
        if (secret.empty())
            continue;
        for (std::size_t at = text.find(secret); at != std::string::npos;
             at = text.find(secret, at + 3))
            text.replace(at, secret.size(), "***");
    }
    return text;
}

} // namespace leader::pg
