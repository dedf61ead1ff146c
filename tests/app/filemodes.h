#pragma once

#include <QFile>
#include <QString>

#include <sys/stat.h>

namespace leader::test {

// A file's or directory's mode in octal ("600"), as ls shows it; "missing" when there is none.
inline QString modeOf(const QString &path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return QStringLiteral("missing");
    return QString::number(info.st_mode & 07777, 8);
}

// Sets path's mode as chmod would, e.g. to make what an older console left with the umask.
inline bool setMode(const QString &path, mode_t mode)
{
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

// The umask most systems start with, 022 (new files 0644, directories 0755), for its scope; the
// caller's is put back after.
class CommonUmask final
{
public:
    CommonUmask()
        : m_saved(::umask(022))
    {}
    ~CommonUmask() { ::umask(m_saved); }

    CommonUmask(const CommonUmask &) = delete;
    CommonUmask &operator=(const CommonUmask &) = delete;

private:
    mode_t m_saved;
};

} // namespace leader::test
