#include "connectionprofile.h"

#include "pg/conninfo.h"

#include <QCoreApplication>

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <memory>

namespace leader::console {

namespace {

// connect_timeout bounds each host of a blocking connect (libpq); the engine's connection adds
// its own deadline, keepalives and tcp_user_timeout, and every statement's deadline client-side.
constexpr int ConnectTimeoutSeconds = 5;

constexpr std::array<KeywordValue, 6> SslModes{{
        {QLatin1StringView("disable"), QLatin1StringView("disable"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Never use TLS: everything, password included, travels in clear.")},
        {QLatin1StringView("allow"), QLatin1StringView("allow"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Try without TLS first; use TLS only if the server insists.")},
        {QLatin1StringView("prefer"), QLatin1StringView("prefer"),
         QT_TRANSLATE_NOOP(
                 "leader::console::KeywordValue",
                 "Use TLS when the server offers it, else connect in clear. The certificate is "
                 "not checked (libpq's default).")},
        {QLatin1StringView("require"), QLatin1StringView("require"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Always use TLS, but do not verify the server's certificate.")},
        {QLatin1StringView("verify-ca"), QLatin1StringView("verify-ca"),
         QT_TRANSLATE_NOOP(
                 "leader::console::KeywordValue",
                 "Always use TLS; the server's certificate must be signed by a trusted CA "
                 "(~/.postgresql/root.crt).")},
        {QLatin1StringView("verify-full"), QLatin1StringView("verify-full"),
         QT_TRANSLATE_NOOP(
                 "leader::console::KeywordValue",
                 "As verify-ca, and the host name must also match the certificate: the only "
                 "mode that stops impersonation.")},
}};

constexpr std::array<KeywordValue, 6> TargetSessionAttrs{{
        {QLatin1StringView(), QLatin1StringView("any"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Take the first host of the list that answers, whatever it is (libpq's "
                           "default).")},
        {QLatin1StringView("read-write"), QLatin1StringView("read-write"),
         QT_TRANSLATE_NOOP(
                 "leader::console::KeywordValue",
                 "Take the first host that accepts writes: with a list of the primary and its "
                 "standbys, the console follows a promotion.")},
        {QLatin1StringView("read-only"), QLatin1StringView("read-only"),
         QT_TRANSLATE_NOOP(
                 "leader::console::KeywordValue",
                 "Take the first host that does not accept writes: pause and unpause then fail.")},
        {QLatin1StringView("primary"), QLatin1StringView("primary"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Take the first host that is not a standby.")},
        {QLatin1StringView("standby"), QLatin1StringView("standby"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Take the first standby: pause and unpause then fail.")},
        {QLatin1StringView("prefer-standby"), QLatin1StringView("prefer-standby"),
         QT_TRANSLATE_NOOP("leader::console::KeywordValue",
                           "Take a standby if one answers, else any host.")},
}};

// The entry a URL's word names, or none.
const KeywordValue *labelled(std::span<const KeywordValue> table, const QString &label)
{
    const auto found = std::ranges::find_if(
            table, [&label](const KeywordValue &entry) { return entry.label == label; });
    return found == table.end() ? nullptr : &*found;
}

// "disable, allow, …": what a refusal lists.
QString labels(std::span<const KeywordValue> table)
{
    QStringList words;
    for (const KeywordValue &entry : table)
        words << entry.label;
    return words.join(QStringLiteral(", "));
}

QString quoted(const QString &value)
{
    QString escaped = value;
    escaped.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
    escaped.replace(QLatin1Char('\''), QLatin1String("\\'"));
    return QLatin1Char('\'') + escaped + QLatin1Char('\'');
}

struct OptionsDeleter
{
    void operator()(PQconninfoOption *options) const { PQconninfoFree(options); }
};
using Options = std::unique_ptr<PQconninfoOption, OptionsDeleter>;

QString valueOf(const PQconninfoOption *options, const char *keyword)
{
    for (const PQconninfoOption *option = options; option && option->keyword; ++option) {
        if (qstrcmp(option->keyword, keyword) == 0)
            return option->val ? QString::fromUtf8(option->val) : QString();
    }
    return {};
}

} // namespace

std::optional<ConnectionProfile> ConnectionProfile::fromUrl(const QString &url, QString *error)
{
    const std::string text = url.toStdString();
    const auto fail = [&](const QString &message) -> std::optional<ConnectionProfile> {
        if (error)
            *error = QString::fromStdString(leader::pg::redactSecrets(message.toStdString(), text));
        return std::nullopt;
    };

    // The engine's one reading decides, so that the console refuses what it would refuse.
    if (const std::optional<std::string> reason = leader::pg::unreadableReason(text))
        return fail(QStringLiteral("cannot read the database URL: %1")
                            .arg(QString::fromStdString(*reason)));
    char *parseError = nullptr;
    const Options parsed(PQconninfoParse(url.toUtf8().constData(), &parseError));
    PQfreemem(parseError);
    if (!parsed)
        return fail(QStringLiteral("cannot read the database URL: out of memory"));
    // What the URL leaves out comes from the PG* variables (and libpq's compiled defaults), as
    // libpq itself would fill it.
    const Options defaults(PQconndefaults());
    const auto value = [&](const char *keyword) {
        const QString given = valueOf(parsed.get(), keyword);
        return given.isEmpty() ? valueOf(defaults.get(), keyword) : given;
    };

    ConnectionProfile profile;
    profile.host = value("host");
    if (profile.host.isEmpty())
        profile.host = value("hostaddr");
    profile.database = value("dbname");
    profile.user = value("user");
    profile.password = value("password");
    if (const QString sslMode = value("sslmode"); !sslMode.isEmpty()) {
        const KeywordValue *mode = labelled(sslModes(), sslMode);
        if (!mode)
            return fail(QStringLiteral("sslmode \"%1\" is not one of %2")
                                .arg(sslMode, labels(sslModes())));
        profile.sslMode = mode->value;
    }
    if (const QString port = value("port"); !port.isEmpty()) {
        QStringList entries = port.split(QLatin1Char(','));
        // A host of a URL without its port has an empty entry: libpq's compiled default.
        for (QString &entry : entries)
            entry = entry.trimmed().isEmpty() ? QStringLiteral("5432") : entry.trimmed();
        if (const QString problem = checkPorts(profile.host, entries.join(QLatin1Char(',')));
            !problem.isEmpty())
            return fail(problem);
        profile.setPortList(entries.join(QLatin1Char(',')));
    }
    if (const QString attrs = value("target_session_attrs"); !attrs.isEmpty()) {
        const KeywordValue *target = labelled(targetSessionAttrsValues(), attrs);
        if (!target)
            return fail(QStringLiteral("target_session_attrs \"%1\" is not one of %2")
                                .arg(attrs, labels(targetSessionAttrsValues())));
        profile.targetSessionAttrs = target->value;
    }
    if (profile.database.isEmpty())
        profile.database = profile.user; // libpq's own default
    return profile;
}

QString KeywordValue::meaningText() const
{
    return QCoreApplication::translate("leader::console::KeywordValue", meaning);
}

std::span<const KeywordValue> ConnectionProfile::sslModes()
{
    return SslModes;
}

std::span<const KeywordValue> ConnectionProfile::targetSessionAttrsValues()
{
    return TargetSessionAttrs;
}

QString ConnectionProfile::portList() const
{
    return ports.isEmpty() ? QString::number(port) : ports;
}

void ConnectionProfile::setPortList(const QString &list)
{
    QStringList entries = list.split(QLatin1Char(','));
    for (QString &entry : entries)
        entry = entry.trimmed();
    port = entries.first().toInt();
    QStringList distinct = entries;
    distinct.removeDuplicates();
    ports = distinct.size() > 1 ? entries.join(QLatin1Char(',')) : QString();
}

QString ConnectionProfile::checkPorts(const QString &host, const QString &portList)
{
    const QStringList entries = portList.split(QLatin1Char(','));
    for (const QString &entry : entries) {
        bool ok = false;
        const int number = entry.trimmed().toInt(&ok);
        if (!ok || number < 1 || number > 65535)
            return QStringLiteral("port \"%1\" is not a TCP port").arg(entry.trimmed());
    }
    const qsizetype hosts = host.split(QLatin1Char(',')).size();
    if (entries.size() != 1 && entries.size() != hosts)
        return QStringLiteral("%1 ports for %2 hosts: give one port for all, or one per host")
                .arg(entries.size())
                .arg(hosts);
    return {};
}

bool ConnectionProfile::isProduction() const
{
    const QString name = environment.trimmed();
    return name.compare(QLatin1String("production"), Qt::CaseInsensitive) == 0
           || name.compare(QLatin1String("prod"), Qt::CaseInsensitive) == 0;
}

QString ConnectionProfile::bandColour() const
{
    if (!colour.isEmpty())
        return colour;
    if (environment.trimmed().isEmpty())
        return {};
    if (isProduction())
        return QStringLiteral("#c62828");
    if (environment.trimmed().compare(QLatin1String("staging"), Qt::CaseInsensitive) == 0)
        return QStringLiteral("#ef6c00");
    return QStringLiteral("#1565c0");
}

QString ConnectionProfile::describe() const
{
    const QStringList hosts = host.split(QLatin1Char(','));
    const QStringList portEntries = portList().split(QLatin1Char(','));
    QStringList servers;
    for (qsizetype i = 0; i < hosts.size(); ++i) {
        QString where = hosts.at(i).isEmpty() ? QStringLiteral("localhost") : hosts.at(i);
        // An IPv6 address in brackets, so its port stays readable.
        if (where.contains(QLatin1Char(':')) && !where.startsWith(QLatin1Char('/'))
            && !where.startsWith(QLatin1Char('@')))
            where = QLatin1Char('[') + where + QLatin1Char(']');
        servers << where + QLatin1Char(':') + portEntries.value(i, portEntries.first());
    }
    QString text;
    if (!user.isEmpty())
        text = user + QLatin1Char('@');
    text += servers.join(QLatin1Char(','));
    if (!database.isEmpty())
        text += QLatin1Char('/') + database;
    return text;
}

QString ConnectionProfile::conninfo() const
{
    QStringList parts;
    if (!host.isEmpty())
        parts << QStringLiteral("host=") + quoted(host);
    parts << QStringLiteral("port=") + quoted(portList());
    if (!database.isEmpty())
        parts << QStringLiteral("dbname=") + quoted(database);
    if (!user.isEmpty())
        parts << QStringLiteral("user=") + quoted(user);
    if (!password.isEmpty())
        parts << QStringLiteral("password=") + quoted(password);
    parts << QStringLiteral("sslmode=") + quoted(sslMode);
    if (!targetSessionAttrs.isEmpty())
        parts << QStringLiteral("target_session_attrs=") + quoted(targetSessionAttrs);
    parts << QStringLiteral("connect_timeout=%1").arg(ConnectTimeoutSeconds);
    parts << QStringLiteral("application_name='leader-console'");
    return parts.join(QLatin1Char(' '));
}

} // namespace leader::console
