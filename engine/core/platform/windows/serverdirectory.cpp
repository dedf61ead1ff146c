#include "platform/serverdirectory.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace leader::platform {

namespace fs = std::filesystem;

std::string_view serverPathUnsafeCharacters()
{
    // pg_ctl splices -D and -l into a cmd.exe command line inside double quotes, where % still
    // expands variables.
    return "\"%,";
}

// One word of pg_ctl's -o: cmd.exe, then the server's C runtime, split that line, and double
// quotes keep a space in (the directory holds no quote, and does not end in a backslash). The
// server reads an unquoted list element up to the next comma, spaces included.
std::string socketDirectoryOption(const fs::path &directory)
{
    return "\"unix_socket_directories=" + directory.string() + "\"";
}

fs::path postgresInstallRoot()
{
    const char *programFiles = std::getenv("ProgramFiles");
    if (!programFiles || !*programFiles)
        return {};
    return fs::path(programFiles) / "PostgreSQL";
}

std::string_view postgresBinDirExample()
{
    return "e.g. C:\\Program Files\\PostgreSQL\\<version>\\bin";
}

std::string_view postgresInstallAdvice()
{
    return "install PostgreSQL for Windows (the installer or the zip archive from postgresql.org) "
           "or set LEADER_PG_BINDIR";
}

struct ServerDirectory::Private
{
    fs::path directory;
    fs::path dataDirectory = directory / "data";
    fs::path runDirectory = directory / "run";
    fs::path logFile = directory / "server.log";
    fs::path passwordFile = directory / "superuser.password";

    bool open(bool create);
    [[noreturn]] void fail(const std::string &what, const fs::path &path,
                           const std::error_code &error) const
    {
        throw DirectoryRefused::unwritable(what, path, error);
    }
};

namespace {

std::optional<std::string> readFile(const fs::path &path, std::uintmax_t offset = 0)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    in.seekg(static_cast<std::streamoff>(offset));
    std::ostringstream contents;
    contents << in.rdbuf();
    return contents.str();
}

} // namespace

// Windows: the default directory lives in the user's profile, which its ACL keeps from other
// users, and the server runs as the caller.
bool ServerDirectory::Private::open(bool create)
{
    std::error_code error;
    const auto status = fs::status(directory, error);
    if (fs::exists(status) && !fs::is_directory(status))
        throw DirectoryRefused(directory.string()
                               + " exists and is not a directory: choose another directory for the "
                                 "cluster");
    if (!create)
        return fs::is_directory(status);
    const bool created = fs::create_directories(directory, error);
    if (error)
        fail("cannot create", directory, error);
    try {
        if (created)
            fs::permissions(directory, fs::perms::owner_all);
        for (const fs::path &subdirectory : {dataDirectory, runDirectory}) {
            if (fs::create_directory(subdirectory, error))
                fs::permissions(subdirectory, fs::perms::owner_all);
            if (error)
                fail("cannot create", subdirectory, error);
        }
        if (!fs::exists(logFile) && !std::ofstream(logFile))
            fail("cannot create", logFile, std::make_error_code(std::errc::permission_denied));
    } catch (const fs::filesystem_error &failure) {
        fail("cannot prepare", failure.path1(), failure.code());
    }
    return true;
}

std::optional<std::string> ServerDirectory::readPassword() const
{
    return readFile(d->passwordFile);
}

void ServerDirectory::writePassword(const std::string &password)
{
    writePrivateFile(d->passwordFile, password + "\n");
}

std::optional<std::string> ServerDirectory::readInData(const std::string &name) const
{
    return readFile(d->dataDirectory / name);
}

std::uintmax_t ServerDirectory::logSize() const
{
    std::error_code error;
    const auto size = fs::file_size(d->logFile, error);
    return error ? 0 : size;
}

std::string ServerDirectory::logSince(std::uintmax_t offset) const
{
    return readFile(d->logFile, offset).value_or("");
}

// No account to switch to on Windows: the server runs as the caller.
ServerDirectory::ServerDirectory(fs::path directory, std::optional<Account>)
    : d(new Private{std::move(directory)})
{}

ServerDirectory::~ServerDirectory() = default;

bool ServerDirectory::open(bool create)
{
    return d->open(create);
}

} // namespace leader::platform
