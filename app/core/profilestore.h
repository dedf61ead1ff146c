#pragma once

#include "core/connectionprofile.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QSettings;

namespace leader::console {

// Saved connection profiles in QSettings, one group "profiles/<name>" each (host, port, ports,
// database, user, sslMode, targetSessionAttrs, environment, colour). The password is never written
// here: it lives in the keychain (PasswordStore), or nowhere. Not thread-safe; use it from the GUI
// thread.
class ProfileStore final
{
public:
    // The application's default QSettings (organisation and application name of the
    // QCoreApplication).
    ProfileStore();
    // An INI file of its own, for tools and tests.
    explicit ProfileStore(const QString &iniFileName);
    ~ProfileStore();

    ProfileStore(const ProfileStore &) = delete;
    ProfileStore &operator=(const ProfileStore &) = delete;

    QStringList names() const; // sorted
    bool contains(const QString &name) const;
    // The saved profile with an empty password; nullopt when there is none by that name.
    std::optional<ConnectionProfile> load(const QString &name) const;
    // False (nothing written) when the name is not valid (see isValidName).
    bool save(const ConnectionProfile &profile);
    void remove(const QString &name);

    // Whether the user asked to keep this profile's password in the keychain. A flag only.
    bool remembersPassword(const QString &name) const;
    void setRemembersPassword(const QString &name, bool remember);

    QString lastUsed() const; // empty when none, or when that profile was removed since
    void setLastUsed(const QString &name);

    void sync();
    QString fileName() const;

    // Non-empty after trimming, no '/' or '\\' (QSettings would read them as nested groups).
    static bool isValidName(const QString &name);

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace leader::console
