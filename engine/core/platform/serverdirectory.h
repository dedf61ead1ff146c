#pragma once

#include "process.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

// What a private PostgreSQL server (engine/sim/embedded/cluster.cpp) needs of the system: how
// pg_ctl's shell takes a path (/bin/sh, cmd.exe on Windows), where PostgreSQL is installed, and a
// server directory other local users cannot reach. On POSIX every entry of that directory is
// checked and opened below the last, never through a symbolic link; on Windows it lives in the
// user's profile, which its ACL keeps from other users, and the server runs as the caller.
namespace leader::platform {

// The characters pg_ctl cannot splice into its shell's command line (it double-quotes -D and -l)
// and libpq cannot take in a host (a comma separates hosts), each once.
std::string_view serverPathUnsafeCharacters();
// unix_socket_directories=<directory> as one word of pg_ctl's -o, which goes through its shell.
std::string socketDirectoryOption(const std::filesystem::path &directory);
// Where PostgreSQL's packages put a <version>/bin per version; empty when the system has none.
std::filesystem::path postgresInstallRoot();
// A bin directory as this system's packages lay it out, for messages.
std::string_view postgresBinDirExample();
// How to get PostgreSQL's programs on this system, for messages.
std::string_view postgresInstallAdvice();

// The server directory or an entry of it refused, or not made: what is wrong and the fix.
class DirectoryRefused final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;

    // what ("cannot create") failed on path with error: the caller chose a directory it cannot
    // write to.
    static DirectoryRefused unwritable(const std::string &what, const std::filesystem::path &path,
                                       const std::error_code &error);
};

// The server's directory: data/ (the cluster), run/ (its socket), server.log and
// superuser.password. Refusals throw DirectoryRefused, failures of the OS std::system_error.
class ServerDirectory final
{
public:
    // directory absolute; account: who runs the server when the caller is root (nullopt: the
    // caller), who then owns what is made.
    ServerDirectory(std::filesystem::path directory, std::optional<Account> account);
    ~ServerDirectory();
    ServerDirectory(const ServerDirectory &) = delete;
    ServerDirectory &operator=(const ServerDirectory &) = delete;

    // The directory and what it holds checked and, with create, what is missing made; false when
    // it is missing and create is not set. A directory, parent or file another user could have
    // planted or changed is refused with the fix, never repaired.
    bool open(bool create);
    // After open():
    // superuser.password as it is; nullopt when there is none.
    std::optional<std::string> readPassword() const;
    void writePassword(const std::string &password);
    // A file of data/; nullopt when there is none.
    std::optional<std::string> readInData(const std::string &name) const;
    std::uintmax_t logSize() const;
    std::string logSince(std::uintmax_t offset) const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace leader::platform
