#include "core/profilestore.h"

#include <QSettings>

namespace leader::console {

namespace {

const QString profilesGroup = QStringLiteral("profiles");
const QString lastUsedKey = QStringLiteral("connection/lastProfile");

QString groupOf(const QString &name)
{
    return profilesGroup + QLatin1Char('/') + name;
}

} // namespace

ProfileStore::ProfileStore()
    : m_settings(std::make_unique<QSettings>())
{}

ProfileStore::ProfileStore(const QString &iniFileName)
    : m_settings(std::make_unique<QSettings>(iniFileName, QSettings::IniFormat))
{}

ProfileStore::~ProfileStore() = default;

bool ProfileStore::isValidName(const QString &name)
{
    return !name.trimmed().isEmpty() && name == name.trimmed() && !name.contains(QLatin1Char('/'))
           && !name.contains(QLatin1Char('\\'));
}

QStringList ProfileStore::names() const
{
    m_settings->beginGroup(profilesGroup);
    QStringList result = m_settings->childGroups();
    m_settings->endGroup();
    result.sort(Qt::CaseInsensitive);
    return result;
}

bool ProfileStore::contains(const QString &name) const
{
    return isValidName(name) && names().contains(name);
}

std::optional<ConnectionProfile> ProfileStore::load(const QString &name) const
{
    if (!isValidName(name) || !names().contains(name))
        return std::nullopt;
    ConnectionProfile profile;
    m_settings->beginGroup(groupOf(name));
    profile.name = name;
    profile.host = m_settings->value(QStringLiteral("host")).toString();
    profile.port = m_settings->value(QStringLiteral("port"), 5432).toInt();
    profile.ports = m_settings->value(QStringLiteral("ports")).toString();
    profile.database = m_settings->value(QStringLiteral("database")).toString();
    profile.user = m_settings->value(QStringLiteral("user")).toString();
    profile.sslMode
            = m_settings->value(QStringLiteral("sslMode"), QStringLiteral("prefer")).toString();
    profile.targetSessionAttrs = m_settings->value(QStringLiteral("targetSessionAttrs")).toString();
    // Absent from profiles saved before environments existed: no band, writes not locked.
    profile.environment = m_settings->value(QStringLiteral("environment")).toString();
    profile.colour = m_settings->value(QStringLiteral("colour")).toString();
    m_settings->endGroup();
    return profile;
}

bool ProfileStore::save(const ConnectionProfile &profile)
{
    if (!isValidName(profile.name))
        return false;
    m_settings->beginGroup(groupOf(profile.name));
    m_settings->setValue(QStringLiteral("host"), profile.host);
    m_settings->setValue(QStringLiteral("port"), profile.port);
    m_settings->setValue(QStringLiteral("ports"), profile.ports);
    m_settings->setValue(QStringLiteral("database"), profile.database);
    m_settings->setValue(QStringLiteral("user"), profile.user);
    m_settings->setValue(QStringLiteral("sslMode"), profile.sslMode);
    m_settings->setValue(QStringLiteral("targetSessionAttrs"), profile.targetSessionAttrs);
    m_settings->setValue(QStringLiteral("environment"), profile.environment);
    m_settings->setValue(QStringLiteral("colour"), profile.colour);
    // An older build or a hand edit may have left one: the password never stays in the file.
    m_settings->remove(QStringLiteral("password"));
    m_settings->endGroup();
    return true;
}

void ProfileStore::remove(const QString &name)
{
    if (!isValidName(name))
        return;
    m_settings->remove(groupOf(name));
    if (lastUsed() == name)
        m_settings->remove(lastUsedKey);
}

bool ProfileStore::remembersPassword(const QString &name) const
{
    if (!isValidName(name))
        return false;
    return m_settings->value(groupOf(name) + QStringLiteral("/rememberPassword"), false).toBool();
}

void ProfileStore::setRemembersPassword(const QString &name, bool remember)
{
    if (!isValidName(name) || !names().contains(name))
        return;
    m_settings->setValue(groupOf(name) + QStringLiteral("/rememberPassword"), remember);
}

QString ProfileStore::lastUsed() const
{
    const QString name = m_settings->value(lastUsedKey).toString();
    return names().contains(name) ? name : QString();
}

void ProfileStore::setLastUsed(const QString &name)
{
    if (isValidName(name))
        m_settings->setValue(lastUsedKey, name);
    else
        m_settings->remove(lastUsedKey);
}

void ProfileStore::sync()
{
    m_settings->sync();
}

QString ProfileStore::fileName() const
{
    return m_settings->fileName();
}

} // namespace leader::console
