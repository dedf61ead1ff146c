#pragma once

#include "core/connectionprofile.h"

#include <QString>

#include <string>

namespace leader::test {

// The console's profile for a test database's URL; a URL the tests made themselves always parses.
inline console::ConnectionProfile profileFor(const std::string &url)
{
    QString error;
    const auto profile = console::ConnectionProfile::fromUrl(QString::fromStdString(url), &error);
    if (!profile)
        qFatal("bad test URL: %s", qPrintable(error));
    return *profile;
}

} // namespace leader::test
