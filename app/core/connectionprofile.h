#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>
#include <span>

namespace leader::console {

// One value of a libpq keyword a profile carries (sslmode, target_session_attrs): label is the
// word a URL and the connection dialog use, value what the profile keeps and hands libpq (empty:
// the keyword left out, libpq's default), meaning what it does, for the dialog's tooltips.
struct KeywordValue
{
    QLatin1StringView value;
    QLatin1StringView label;
    const char *meaning;

    QString meaningText() const; // translated
};

// Where the console connects: a saved profile (QSettings, password in the keychain), a --database
// URL, or the embedded demo's cluster.
struct ConnectionProfile
{
    QString name; // the saved profile's name; empty for a URL given on the command line
    // A name, an address, or a Unix-socket directory; or a libpq host list ("db1,db2"), tried in
    // order, so that with targetSessionAttrs "read-write" the console follows a promotion.
    QString host;
    int port = 5432; // every host's port; with ports set, the first host's
    QString ports;   // one port per host ("5432,5433") when they differ; empty: port for all
    QString database;
    QString user;
    QString sslMode = QStringLiteral("prefer");
    // libpq's target_session_attrs, a value of targetSessionAttrsValues(); empty: libpq's "any".
    QString targetSessionAttrs;
    QString password; // never written to QSettings
    // What this database is to the operator ("production", "staging"; empty: not said), shown as
    // a band across the window in colour ("#c62828"; empty: the environment's own colour). A
    // production profile opens with writes locked (ProductionGuard).
    QString environment;
    QString colour;

    // A postgresql:// URL or key=value conninfo, the PG* variables filling what it leaves out.
    // nullopt with *error set to one line (no secret) when it cannot be parsed.
    static std::optional<ConnectionProfile> fromUrl(const QString &url, QString *error);
    // Each keyword's one table, in libpq's order: what a URL may say, what the dialog offers.
    // disable, allow, prefer, require, verify-ca, verify-full
    static std::span<const KeywordValue> sslModes();
    // any (kept as an empty value), read-write, read-only, primary, standby, prefer-standby
    static std::span<const KeywordValue> targetSessionAttrsValues();

    // "5432", or "5432,5433" for one port per host: libpq's port keyword.
    QString portList() const;
    // Sets port and ports from such a list, its entries trimmed; one port repeated for every
    // host is one port. The list should pass checkPorts().
    void setPortList(const QString &list);
    // Empty when host and port(s) fit together, else one line saying what is wrong: a port out of
    // 1-65535, or a port list whose length is neither 1 nor the number of hosts.
    static QString checkPorts(const QString &host, const QString &portList);

    // environment is "production" or "prod", in any case.
    bool isProduction() const;
    // colour, else red for production, orange for staging, blue for any other environment;
    // empty without an environment.
    QString bandColour() const;

    // user@host:port/database, no password: for titles, messages and logs. A host list names
    // every server: user@db1:5432,db2:5433/database.
    QString describe() const;
    // key=value conninfo for libpq, password included, application_name leader-console.
    QString conninfo() const;

    friend bool operator==(const ConnectionProfile &, const ConnectionProfile &) = default;
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::ConnectionProfile)
