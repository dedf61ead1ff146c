#include "migratecommand.h"

#include "pg/connection.h"
#include "schema/features.h"
#include "schema/migrations.h"
#include "schema/migrator.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace leaderctl {

namespace {

// --out DIR: a directory only the caller can write, holding files that did not exist before. A
// directory another local user made, or a link they planted in it, would let them choose what
// root's files overwrite, or edit the SQL before the owner runs it (issue 51). As for mkdtemp, only
// DIR itself and the files are checked: DIR's parents may be links, and missing ones are made.
class OutputDirectory final
{
public:
    explicit OutputDirectory(const std::filesystem::path &path);

    const std::filesystem::path &path() const { return m_path; }
    // Creates DIR/name, which must not exist (not even as a link), holding text.
    void write(const std::string &name, std::string_view text);

private:
    [[noreturn]] void refuse(const std::string &why) const
    {
        throw std::runtime_error("refusing --out " + m_path.string() + ": it " + why
                                 + "; choose a new directory (leaderctl creates it) or remove it");
    }
    [[noreturn]] void refuseFile(const std::filesystem::path &file) const
    {
        throw std::runtime_error("refusing to write " + file.string()
                                 + ": it exists already (a file or a link); choose a new --out "
                                   "directory (leaderctl creates it) or remove "
                                 + m_path.string());
    }
    void makeParents() const
    {
        std::error_code error;
        if (!m_path.parent_path().empty())
            std::filesystem::create_directories(m_path.parent_path(), error);
        if (error)
            throw std::runtime_error("cannot create " + m_path.parent_path().string() + ": "
                                     + error.message());
    }

    std::filesystem::path m_path;
#ifndef _WIN32
    // The directory as checked: the files are made relative to it.
    struct Descriptor
    {
        int fd = -1;
        Descriptor() = default;
        Descriptor(const Descriptor &) = delete;
        Descriptor &operator=(const Descriptor &) = delete;
        ~Descriptor()
        {
            if (fd >= 0)
                ::close(fd);
        }
    } m_directory;
#endif
};

// "DIR/" and "DIR/." name what a link DIR points to, which would defeat the checks on DIR itself.
std::filesystem::path finalDirectory(const std::filesystem::path &path)
{
    std::filesystem::path normal = path.lexically_normal();
    while (!normal.has_filename() && normal.has_relative_path())
        normal = normal.parent_path();
    return normal;
}

#ifdef _WIN32

// The system's message (GCC 12's system_category() reads Win32 codes as errno values).
std::string windowsError(DWORD code)
{
    char buffer[512] = {};
    const DWORD length
            = ::FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                               code, 0, buffer, sizeof buffer, nullptr);
    std::string text(buffer, length);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == '.'))
        text.pop_back();
    return text.empty() ? "Windows error " + std::to_string(code) : text;
}

OutputDirectory::OutputDirectory(const std::filesystem::path &path)
    : m_path(finalDirectory(path))
{
    makeParents();
    if (::CreateDirectoryW(m_path.wstring().c_str(), nullptr))
        return;
    const DWORD code = ::GetLastError();
    if (code != ERROR_ALREADY_EXISTS)
        throw std::runtime_error("cannot create " + m_path.string() + ": " + windowsError(code));
    const DWORD attributes = ::GetFileAttributesW(m_path.wstring().c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES)
        throw std::runtime_error("cannot read " + m_path.string() + ": "
                                 + windowsError(::GetLastError()));
    if (attributes & FILE_ATTRIBUTE_REPARSE_POINT)
        refuse("is a reparse point (a link or a junction)");
    if (!(attributes & FILE_ATTRIBUTE_DIRECTORY))
        refuse("is not a directory");
}

void OutputDirectory::write(const std::string &name, std::string_view text)
{
    const std::filesystem::path file = m_path / name;
    // CREATE_NEW fails on any existing name; FILE_FLAG_OPEN_REPARSE_POINT never follows one.
    const HANDLE handle
            = ::CreateFileW(file.wstring().c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                            FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
        const DWORD code = ::GetLastError();
        if (code == ERROR_FILE_EXISTS || code == ERROR_ALREADY_EXISTS)
            refuseFile(file);
        throw std::runtime_error("cannot create " + file.string() + ": " + windowsError(code));
    }
    DWORD error = ERROR_SUCCESS;
    while (error == ERROR_SUCCESS && !text.empty()) {
        DWORD count = 0;
        const auto chunk = static_cast<DWORD>(std::min<std::size_t>(text.size(), 1U << 20));
        if (::WriteFile(handle, text.data(), chunk, &count, nullptr) && count > 0)
            text.remove_prefix(count);
        else
            error = ::GetLastError() != ERROR_SUCCESS ? ::GetLastError() : ERROR_WRITE_FAULT;
    }
    if (!::CloseHandle(handle) && error == ERROR_SUCCESS)
        error = ::GetLastError();
    if (error != ERROR_SUCCESS)
        throw std::runtime_error("cannot write " + file.string() + ": " + windowsError(error));
}

#else

OutputDirectory::OutputDirectory(const std::filesystem::path &path)
    : m_path(finalDirectory(path))
{
    makeParents();
    if (::mkdir(m_path.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create " + m_path.string() + ": " + std::strerror(errno));
    // Checked on the open directory, so that what is checked is what the files go into.
    m_directory.fd = ::open(m_path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat status = {};
    if (m_directory.fd < 0 && (errno == ELOOP || errno == ENOTDIR)
        && ::lstat(m_path.c_str(), &status) == 0)
        refuse(S_ISLNK(status.st_mode) ? "is a symbolic link" : "is not a directory");
    if (m_directory.fd < 0 || ::fstat(m_directory.fd, &status) != 0)
        throw std::runtime_error("cannot open " + m_path.string() + ": " + std::strerror(errno));
    if (status.st_uid != ::geteuid())
        refuse("belongs to another user");
    if ((status.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        refuse("is writable by its group or by others");
}

void OutputDirectory::write(const std::string &name, std::string_view text)
{
    const std::filesystem::path file = m_path / name;
    const int fd = ::openat(m_directory.fd, name.c_str(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST)
        refuseFile(file);
    if (fd < 0)
        throw std::runtime_error("cannot create " + file.string() + ": " + std::strerror(errno));
    int error = 0;
    while (error == 0 && !text.empty()) {
        const ssize_t count = ::write(fd, text.data(), text.size());
        if (count > 0)
            text.remove_prefix(static_cast<std::size_t>(count));
        else if (count == 0 || errno != EINTR)
            error = count == 0 ? EIO : errno;
    }
    if (::close(fd) != 0 && error == 0)
        error = errno;
    if (error != 0)
        throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(error));
}

#endif

} // namespace

using leader::schema::Migration;
using leader::schema::MigrationSet;

void migrate(leader::pg::Connection &connection, bool withDemo)
{
    const auto announce = [](const Migration &migration, bool up) {
        std::cout << "leaderctl: " << (up ? "applying " : "undoing ")
                  << (migration.set == MigrationSet::Extension ? "leader_ext " : "migration ")
                  << leader::schema::versionLabel(migration.version) << " " << migration.name
                  << "\n";
        for (const std::string &change : leader::schema::outsideChanges(migration, up))
            std::cout << "leaderctl:   outside leader_ext: " << change << "\n";
        std::cout << std::flush;
    };
    leader::schema::Migrator migrator(connection, announce);
    const std::vector<int> applied
            = withDemo ? migrator.migrate(
                      {MigrationSet::Adr, MigrationSet::Extension, MigrationSet::Demo})
                       : migrator.migrate({MigrationSet::Adr, MigrationSet::Extension});
    if (applied.empty())
        std::cout << "leaderctl: " << connection.target() << " is up to date\n";
    else
        std::cout << "leaderctl: applied " << applied.size() << " migration"
                  << (applied.size() == 1 ? "" : "s") << " to " << connection.target() << "\n";
}

void printSql(const PrintSqlOptions &options)
{
    using leader::schema::holdsBothDirections;
    const std::vector<leader::schema::ScriptFile> files
            = leader::schema::extensionScripts(options.format, options.to);
    if (options.out.empty()) {
        // To standard output, one direction, in the order it is applied: psql -f - can run it.
        for (const leader::schema::ScriptFile &file : files) {
            const bool isDown = file.name.ends_with(".down.sql") || file.name.starts_with("U");
            if (holdsBothDirections(options.format) || isDown == options.down)
                std::cout << "-- file: " << file.name << "\n" << file.text << "\n";
        }
        return;
    }
    OutputDirectory out(options.out);
    for (const leader::schema::ScriptFile &file : files) {
        out.write(file.name, file.text);
        std::cout << "leaderctl: wrote " << (out.path() / file.name).string() << "\n";
    }
}

void printApplied(const std::string &target, const std::vector<int> &applied)
{
    if (applied.empty()) {
        std::cout << "leaderctl: " << target << " is up to date\n";
        return;
    }
    for (const leader::schema::Migration &migration : leader::schema::embeddedMigrations()) {
        if (std::find(applied.begin(), applied.end(), migration.version) != applied.end())
            std::cout << "leaderctl: applied migration " << std::setw(4) << std::setfill('0')
                      << migration.version << " " << migration.name << "\n";
    }
}

} // namespace leaderctl
