#include "conninfo.h"

#include <libpq-fe.h>

#include <charconv>
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
        unsigned char byte = 0;
        const char *digits = text.data() + i + 1;
        if (text[i] == '%' && i + 2 < text.size()
            && std::from_chars(digits, digits + 2, byte, 16).ptr == digits + 2) {
            decoded += static_cast<char>(byte);
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

std::vector<std::string> splitList(const std::string &list)
{
    std::vector<std::string> items;
    std::size_t from = 0;
    for (std::size_t comma = list.find(','); comma != std::string::npos;
         comma = list.find(',', from)) {
        items.push_back(list.substr(from, comma - from));
        from = comma + 1;
    }
    items.push_back(list.substr(from));
    return items;
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

// One server of a host list: the host, hostaddr and port entries at one position.
struct Server
{
    std::string host;
    std::string hostaddr;
    std::string port;
};

// Where a URL connects, split per server as libpq splits it, the PG* variables filling a list the
// URL leaves out; and every other keyword the URL gives, in order.
struct Target
{
    std::vector<Server> servers; // never empty
    std::vector<std::pair<std::string, std::string>> others;

    std::string value(const std::string &keyword) const
    {
        for (const auto &[name, value] : others)
            if (name == keyword)
                return value;
        return {};
    }
};

Target targetOf(const std::string &url)
{
    Target target;
    std::string host, hostaddr, port;
    if (const ConninfoPtr options = parsed(url)) {
        for (PQconninfoOption *option = options.get(); option->keyword; ++option) {
            if (!option->val || !*option->val)
                continue;
            const std::string keyword = option->keyword;
            if (keyword == "host")
                host = option->val;
            else if (keyword == "hostaddr")
                hostaddr = option->val;
            else if (keyword == "port")
                port = option->val;
            else
                target.others.emplace_back(keyword, option->val);
        }
    }
    host = host.empty() ? envOr("PGHOST", {}) : host;
    hostaddr = hostaddr.empty() ? envOr("PGHOSTADDR", {}) : hostaddr;
    port = port.empty() ? envOr("PGPORT", {}) : port;
    // libpq counts the servers in hostaddr when it is given, else in host, and takes either one
    // port for all of them or one port each.
    const std::vector<std::string> hosts = splitList(host);
    const std::vector<std::string> addresses = splitList(hostaddr);
    const std::vector<std::string> ports = splitList(port);
    const std::size_t count = hostaddr.empty() ? hosts.size() : addresses.size();
    for (std::size_t i = 0; i < count; ++i) {
        Server server;
        server.host = i < hosts.size() ? hosts[i] : std::string();
        server.hostaddr = i < addresses.size() ? addresses[i] : std::string();
        server.port = ports.size() == 1 ? ports.front() : i < ports.size() ? ports[i] : "";
        if (server.port.empty())
            server.port = "5432";
        target.servers.push_back(std::move(server));
    }
    return target;
}

std::string keywords(const Target &target)
{
    std::string conninfo;
    for (const auto &[keyword, value] : target.others)
        conninfo += keyword + "=" + quoted(value) + " ";
    return conninfo;
}

} // namespace

std::string databaseUrlFrom(const std::string &commandLineValue)
{
    return commandLineValue.empty() ? envOr("DATABASE_URL", {}) : commandLineValue;
}

std::string describeTarget(const std::string &url)
{
    const Target target = targetOf(url);
    std::string servers;
    for (const Server &server : target.servers) {
        std::string name = !server.host.empty()       ? server.host
                           : !server.hostaddr.empty() ? server.hostaddr
                                                      : std::string("localhost");
        // An IPv6 address in brackets, so its port stays readable.
        if (name.find(':') != std::string::npos && name.front() != '/' && name.front() != '@')
            name = "[" + name + "]";
        servers += (servers.empty() ? "" : ",") + name + ":" + server.port;
    }
    std::string user = target.value("user");
    const char *login = std::getenv("USER");
    user = user.empty() ? envOr("PGUSER", login ? login : "") : user;
    std::string dbname = target.value("dbname");
    dbname = dbname.empty() ? envOr("PGDATABASE", user) : dbname;
    return (user.empty() ? std::string() : user + "@") + servers + "/" + dbname;
}

Endpoint endpointOf(const std::string &url)
{
    const Server first = targetOf(url).servers.front();
    Endpoint endpoint;
    endpoint.host = !first.hostaddr.empty() ? first.hostaddr : first.host;
    if (endpoint.host.empty())
        endpoint.host = "/var/run/postgresql"; // libpq's default: the Unix-domain socket
    endpoint.unixSocket = endpoint.host.front() == '/' || endpoint.host.front() == '@';
    const auto [end, error] = std::from_chars(first.port.data(),
                                              first.port.data() + first.port.size(), endpoint.port);
    if (error != std::errc() || end != first.port.data() + first.port.size())
        endpoint.port = 5432;
    return endpoint;
}

std::string throughAddress(const std::string &url, const std::string &address, int port)
{
    const Target target = targetOf(url);
    const Server &first = target.servers.front();
    std::string hosts = first.host.empty() ? address : first.host;
    std::string addresses = address;
    std::string ports = std::to_string(port);
    for (std::size_t i = 1; i < target.servers.size(); ++i) {
        const Server &server = target.servers[i];
        hosts += "," + server.host;
        addresses += "," + server.hostaddr;
        ports += "," + server.port;
    }
    return keywords(target) + "host=" + quoted(hosts) + " hostaddr=" + quoted(addresses)
           + " port=" + quoted(ports);
}

std::vector<std::string> serverConninfos(const std::string &url)
{
    const Target target = targetOf(url);
    const std::string common = keywords(target);
    std::vector<std::string> conninfos;
    for (const Server &server : target.servers)
        conninfos.push_back(common + "host=" + quoted(server.host) + " hostaddr="
                            + quoted(server.hostaddr) + " port=" + quoted(server.port));
    return conninfos;
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
