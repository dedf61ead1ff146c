#include "core/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QStringList>

namespace leader::console {

namespace {

constexpr QFileDevice::Permissions OwnerOnlyFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions OwnerOnlyDirectory = OwnerOnlyFile | QFileDevice::ExeOwner;

} // namespace

bool ensurePrivateDirectory(const QString &path)
{
    const QDir here;
    // Another thread (another window's history writer) may make it first: then mkdir fails and
    // the permissions are set below all the same.
    if (!QFileInfo::exists(path) && here.mkpath(QFileInfo(path).absolutePath()))
        here.mkdir(path, OwnerOnlyDirectory);
    return QFileInfo(path).isDir() && QFile::setPermissions(path, OwnerOnlyDirectory);
}

bool ensurePrivateFile(const QString &path, QString *error)
{
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::NewOnly, OwnerOnlyFile)
        || (file.exists() && file.setPermissions(OwnerOnlyFile))) {
        return true;
    }
    if (error)
        *error = file.errorString();
    return false;
}

void narrowFilesIn(const QString &directory)
{
    const QFileInfoList files = QDir(directory).entryInfoList(QDir::Files | QDir::Hidden);
    for (const QFileInfo &file : files)
        QFile::setPermissions(file.filePath(), OwnerOnlyFile);
}

bool ensurePrivateConsoleFiles()
{
    QStringList failed;
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (!ensurePrivateDirectory(data))
        failed.append(data);
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    // An INI file here (macOS keeps a plist that cfprefsd writes, Windows the registry).
    const QString settings = QSettings().fileName();
    const QString directory = QFileInfo(settings).absolutePath();
    if (!ensurePrivateDirectory(directory))
        failed.append(directory);
    else if (!ensurePrivateFile(settings))
        failed.append(settings);
#endif
    for (const QString &path : std::as_const(failed)) {
        qWarning("leader-console: cannot make %s readable by its owner only",
                 qPrintable(QDir::toNativeSeparators(path)));
    }
    return failed.isEmpty();
}

} // namespace leader::console
