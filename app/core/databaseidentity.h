#pragma once

#include <QMetaType>
#include <QString>

namespace leader::console {

// Which database a connection reached (monitor::readDatabaseIdentity): the server's
// system_identifier, or where it may not be read its address as the server sees it, and the
// database's name. The same database opened through a URL, a profile, another spelling of its
// host or PgBouncer has the same identity; the chart's history is kept under it.
struct DatabaseIdentity
{
    QString systemIdentifier; // empty where the login may not execute pg_control_system()
    QString serverAddress;    // "127.0.0.1:5432", "local:5432"
    QString database;

    // Empty when it could not be read: the caller falls back to how the database was opened.
    bool isValid() const
    {
        return !database.isEmpty() && (!systemIdentifier.isEmpty() || !serverAddress.isEmpty());
    }

    friend bool operator==(const DatabaseIdentity &, const DatabaseIdentity &) = default;
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::DatabaseIdentity)
