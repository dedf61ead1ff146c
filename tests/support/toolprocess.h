#pragma once

#include <QProcessEnvironment>
#include <QString>

#include <string_view>

namespace leader::test {

inline QString qs(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The caller's environment without anything that says where to connect, for a tool started by a
// test: each run passes its database on the command line.
inline QProcessEnvironment cleanEnvironment()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &name : environment.keys()) {
        if (name.startsWith("PG") || name == "DATABASE_URL")
            environment.remove(name);
    }
    return environment;
}

} // namespace leader::test
