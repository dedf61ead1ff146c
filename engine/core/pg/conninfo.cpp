#include "conninfo.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string_view>
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

std::vector<std::string> splitList(const std::string &list, char separator = ',')
{
    std::vector<std::string> items;
    std::size_t from = 0;
    for (std::size_t at = list.find(separator); at != std::string::npos;
         at = list.find(separator, from)) {
        items.push_back(list.substr(from, at - from));
        from = at + 1;
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

bool isUri(const std::string &url)
{
    return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

// A URL's text split where libpq splits it (conninfo_uri_parse_options in fe-connect.c): the user
// info ends at the first '@' met before any '/'; without one, the hosts start right away.
struct UriText
{
    std::optional<std::string> userinfo; // "user[:password]", without its '@'
    std::string rest;                    // hosts, path and query
};

UriText uriText(const std::string &url)
{
    UriText text;
    const std::size_t start = url.find("://") + 3;
    const std::size_t end = url.find_first_of("@/", start);
    if (end != std::string::npos && url[end] == '@') {
        text.userinfo = url.substr(start, end - start);
        text.rest = url.substr(end + 1);
    } else {
        text.rest = url.substr(start);
    }
    return text;
}

enum class Problem { None, Refused, AtAfterUserInfo, PortNotANumber };

// libpq's one reading of a connection string, and whether it is what its author meant.
struct Reading
{
    ConninfoPtr options; // null when libpq refused the text
    std::string libpqError;
    Problem problem = Problem::None;
};

std::string optionValue(const Reading &reading, std::string_view keyword)
{
    for (const PQconninfoOption *option = reading.options.get(); option && option->keyword;
         ++option)
        if (keyword == option->keyword)
            return option->val ? option->val : "";
    return {};
}

Reading readOf(const std::string &url)
{
    Reading reading;
    char *error = nullptr;
    reading.options.reset(PQconninfoParse(url.c_str(), &error));
    if (error) {
        const std::string message = error;
        reading.libpqError = message.substr(0, message.find('\n'));
        PQfreemem(error);
    }
    if (!reading.options) {
        reading.problem = Problem::Refused;
        return reading;
    }
    if (!isUri(url))
        return reading;
    // libpq reads a raw '@' or '/' of a password as the end of the user info or of the hosts: the
    // rest of the password then becomes a host, a port or the database name, and would print.
    const UriText text = uriText(url);
    if (text.rest.substr(0, text.rest.find('?')).find('@') != std::string::npos) {
        reading.problem = Problem::AtAfterUserInfo;
    } else if (!text.userinfo) {
        for (const std::string &port : splitList(optionValue(reading, "port")))
            if (port.find_first_not_of("0123456789") != std::string::npos)
                reading.problem = Problem::PortNotANumber;
    }
    return reading;
}

bool isKeyword(const std::string &name)
{
    static const std::vector<std::string> keywords = [] {
        std::vector<std::string> names;
        const ConninfoPtr defaults(PQconndefaults());
        for (const PQconninfoOption *option = defaults.get(); option && option->keyword; ++option)
            names.emplace_back(option->keyword);
        return names;
    }();
    return std::find(keywords.begin(), keywords.end(), name) != keywords.end();
}

// Every keyword libpq read and its value, bar one keyword.
std::vector<std::pair<std::string, std::string>> settingsOf(const Reading &reading,
                                                            std::string_view except = {})
{
    std::vector<std::pair<std::string, std::string>> settings;
    for (const PQconninfoOption *option = reading.options.get(); option && option->keyword;
         ++option)
        if (option->val && *option->val && except != option->keyword)
            settings.emplace_back(option->keyword, option->val);
    return settings;
}

// What may be a password in url's text: libpq's reading of it and the text it was read from; for
// an unreadable URL every piece of the text before its last '@', where the author's password
// lies whatever libpq made of it.
std::vector<std::string> secretsOf(const std::string &url, const Reading &reading)
{
    std::vector<std::string> secrets;
    const auto add = [&](const std::string &secret) {
        secrets.push_back(secret);
        secrets.push_back(percentDecoded(secret));
    };
    // Text where a password may lie, whole and in every piece between separators.
    const auto addPieces = [&](const std::string &region) {
        add(region);
        std::size_t from = 0;
        for (std::size_t at = 0; at <= region.size(); ++at) {
            if (at == region.size()
                || std::string_view(":/@?&=,[]#'\" \t\\").find(region[at])
                           != std::string_view::npos) {
                // A one-character piece says next to nothing, and masking it would mask every
                // such character of the message.
                if (at - from >= 2)
                    add(region.substr(from, at - from));
                from = at + 1;
            }
        }
    };
    add(optionValue(reading, "password"));
    if (isUri(url)) {
        const UriText text = uriText(url);
        // After each ':' of the user info: a raw ':' in a user name ends it early for libpq,
        // while its author may have meant only the text after the last one as the password.
        if (text.userinfo)
            for (std::size_t colon = text.userinfo->find(':'); colon != std::string::npos;
                 colon = text.userinfo->find(':', colon + 1))
                add(text.userinfo->substr(colon + 1));
        if (reading.problem != Problem::None) {
            const std::size_t start = url.find("://") + 3;
            const std::size_t lastAt = url.rfind('@');
            const std::size_t end = lastAt != std::string::npos && lastAt >= start
                                            ? lastAt
                                            : url.find('?', start);
            addPieces(url.substr(start, end - start));
        }
    }
    // The text of password=... (a URL's query, or key=value), found without libpq, which may just
    // have refused the string.
    static const std::regex keyword(R"(password\s*=\s*('(?:[^'\\]|\\.)*'?|[^\s&]+))",
                                    std::regex::icase);
    for (std::sregex_iterator it(url.begin(), url.end(), keyword), end; it != end; ++it) {
        std::string secret = (*it)[1].str();
        add(secret);
        if (secret.starts_with('\'')) {
            secret = secret.substr(
                    1, secret.size() - (secret.size() > 1 && secret.ends_with('\'') ? 2 : 1));
            // libpq reads \' and \\ inside quotes as the character itself.
            std::string unescaped;
            for (std::size_t i = 0; i < secret.size(); ++i) {
                if (secret[i] == '\\' && i + 1 < secret.size())
                    ++i;
                unescaped += secret[i];
            }
            add(secret);
            add(unescaped);
        }
        // In a string libpq refused, a raw '&' or space may have cut the value short: it may run
        // on up to the next keyword libpq knows.
        if (reading.problem != Problem::None) {
            const std::size_t from = it->position(1);
            std::size_t until = url.size();
            static const std::regex next(R"([&\s]+([a-z_]+)\s*=)");
            for (std::sregex_iterator
                         after(url.begin() + static_cast<std::ptrdiff_t>(from), url.end(), next),
                 none;
                 after != none; ++after)
                if (isKeyword((*after)[1].str())) {
                    until = from + after->position(0);
                    break;
                }
            addPieces(url.substr(from, until - from));
        }
    }
    if (const char *password = std::getenv("PGPASSWORD"))
        secrets.emplace_back(password);
    std::erase_if(secrets, [](const std::string &secret) { return secret.empty(); });
    // The longest first, so that a password is masked whole rather than piece by piece.
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string &a, const std::string &b) { return a.size() > b.size(); });
    return secrets;
}

std::string masked(std::string text, const std::vector<std::string> &secrets)
{
    static const std::string Mask = "***";
    for (const std::string &secret : secrets)
        for (std::size_t at = text.find(secret); at != std::string::npos;
             at = text.find(secret, at + Mask.size()))
            text.replace(at, secret.size(), Mask);
    return text;
}

} // namespace

std::string databaseUrlFrom(const std::string &commandLineValue)
{
    return commandLineValue.empty() ? envOr("DATABASE_URL", {}) : commandLineValue;
}

std::string describeTarget(const std::string &url)
{
    if (readOf(url).problem != Problem::None)
        return isUri(url) ? "an unreadable connection URL" : "an unreadable connection string";
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

std::optional<std::string> unreadableReason(const std::string &url)
{
    const Reading reading = readOf(url);
    if (reading.problem == Problem::None)
        return std::nullopt;
    const std::string what = isUri(url) ? "URL" : "string";
    switch (reading.problem) {
    case Problem::Refused:
        return "libpq cannot read the connection " + what + " ("
               + masked(reading.libpqError, secretsOf(url, reading)) + "); "
               + (isUri(url) ? "percent-encode reserved characters in the user name and "
                               "password (%2F for /, %40 for @, %25 for %)"
                             : "quote a value holding spaces or quotes: password='it\\'s'");
    case Problem::AtAfterUserInfo:
        return std::string("the connection URL has a raw '@' after its user info; percent-encode "
                           "'@' and '/' in the user name, password and database name (%40, %2F)");
    case Problem::PortNotANumber:
        return std::string("the connection URL has no user info and a port that is not a number; "
                           "percent-encode ':' and '/' in the user name and password (%3A, %2F)");
    case Problem::None:
        break;
    }
    return std::nullopt;
}

std::string redactSecrets(std::string text, const std::string &url)
{
    return masked(std::move(text), secretsOf(url, readOf(url)));
}

std::string withoutPassword(const std::string &url)
{
    const Reading reading = readOf(url);
    if (reading.problem != Problem::None)
        throw std::invalid_argument(
                "cannot take the password out of "
                + std::string(isUri(url) ? "the connection URL: " : "the connection string: ")
                + *unreadableReason(url));
    std::string stripped;
    if (isUri(url)) {
        // The URL's own text minus its password, so that it reads as before in a command line.
        const UriText text = uriText(url);
        stripped = url.substr(0, url.find("://") + 3);
        if (text.userinfo)
            stripped += text.userinfo->substr(0, text.userinfo->find(':')) + "@";
        const std::size_t query = text.rest.find('?');
        stripped += text.rest.substr(0, query);
        if (query != std::string::npos) {
            std::string kept;
            for (const std::string &parameter : splitList(text.rest.substr(query + 1), '&'))
                if (parameter.substr(0, parameter.find('=')) != "password")
                    kept += (kept.empty() ? "" : "&") + parameter;
            if (!kept.empty())
                stripped += "?" + kept;
        }
    } else {
        for (const PQconninfoOption *option = reading.options.get(); option && option->keyword;
             ++option)
            if (option->val && *option->val && std::string_view(option->keyword) != "password")
                stripped += std::string(stripped.empty() ? "" : " ") + option->keyword + "="
                            + quoted(option->val);
    }
    // Whatever the text said, what libpq reads must be the same connection without a password.
    if (readOf(stripped).problem != Problem::None || !passwordOf(stripped).empty()
        || settingsOf(readOf(stripped)) != settingsOf(reading, "password"))
        throw std::invalid_argument("cannot take the password out of " + describeTarget(url));
    return stripped;
}

std::string passwordOf(const std::string &url)
{
    const Reading reading = readOf(url);
    for (const PQconninfoOption *option = reading.options.get(); option && option->keyword;
         ++option)
        if (std::string_view(option->keyword) == "password" && option->val)
            return option->val;
    return {};
}

} // namespace leader::pg
