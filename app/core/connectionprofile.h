#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

class QSqlDatabase;

namespace leader::console {

// Where the console connects: a saved profile (QSettings, password in the keychain), a --database
// URL, or the embedded demo's cluster.
struct ConnectionProfile
{
    QString name; // the saved profile's name; empty for a URL given on the command line
    QString host; // a name, an address, or a Unix-socket directory
    int port = 5432;
    QString database;
    QString user;
    QString sslMode = QStringLiteral("prefer");
    QString password; // never written to QSettings

    // A postgresql:// URL or key=value conninfo, the PG* variables filling what it leaves out.
    // nullopt with *error set to one line (no secret) when it cannot be parsed.
    static std::optional<ConnectionProfile> fromUrl(const QString &url, QString *error);
    static QStringList sslModes(); // disable, allow, prefer, require, verify-ca, verify-full

    // user@host:port/database, no password: for titles, messages and logs.
    QString describe() const;
    // key=value conninfo for libpq, password included, application_name leader-console.
    QString conninfo() const;
    // Host, port, database, user, password and the connect options (sslmode, connect_timeout,
    // application_name, keepalives) on a QPSQL connection.
    void applyTo(QSqlDatabase &database) const;

    friend bool operator==(const ConnectionProfile &, const ConnectionProfile &) = default;
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::ConnectionProfile)
