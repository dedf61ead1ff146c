#include "platform/serverdirectory.h"

#include <algorithm>
#include <cctype>
#include <system_error>
#include <vector>

namespace leader::platform {

namespace fs = std::filesystem;

std::string_view serverPathUnsafeCharacters()
{
    // pg_ctl splices -D and -l into a /bin/sh command line inside double quotes.
    return "\"$`\\,";
}

// One word of pg_ctl's -o, which pg_ctl hands to /bin/sh: single quotes keep it whole, and the
// double quotes inside keep a space or a comma in the server's list element.
std::string socketDirectoryOption(const fs::path &directory)
{
    std::string quoted = "'";
    for (const char c : "\"" + directory.string() + "\"")
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return "unix_socket_directories=" + quoted + "'";
}

fs::path postgresInstallRoot()
{
    return "/usr/lib/postgresql";
}

std::string_view postgresBinDirExample()
{
    return "e.g. /usr/lib/postgresql/<version>/bin";
}

std::string_view postgresInstallAdvice()
{
    return "install them with `sudo apt-get install postgresql` or set LEADER_PG_BINDIR";
}

struct ServerDirectory::Private
{
    fs::path directory;
    std::optional<Account> account;
    // The directory, opened from / without following a symbolic link (open).
    std::optional<OpenDirectory> handle;

    bool open(bool create);
    void checkReachable() const;
    [[noreturn]] void fail(const std::string &what, const fs::path &path,
                           const std::error_code &error) const
    {
        throw DirectoryRefused::unwritable(what, path, error);
    }
};

namespace {

constexpr const char *LogName = "server.log";
constexpr const char *PasswordName = "superuser.password";
constexpr unsigned Sticky = 01000;

std::string octal(unsigned mode)
{
    std::string text;
    for (int shift = 9; shift >= 0; shift -= 3)
        text += static_cast<char>('0' + ((mode >> shift) & 7));
    return text;
}

std::string ownerText(unsigned uid)
{
    const auto owner = accountOf(uid);
    return (owner ? owner->name + " " : std::string()) + "(uid " + std::to_string(uid) + ")";
}

// A path as one word of a shell command, for the fixes the messages give.
std::string shellWord(const fs::path &path)
{
    const std::string text = path.string();
    const bool plain = std::all_of(text.begin(), text.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("/._-+@%:").find(c) != std::string_view::npos;
    });
    if (plain)
        return text;
    std::string quoted = "'";
    for (const char c : text)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// What an entry of the cluster directory must be, and what to say when it is not.
struct Rule
{
    std::string_view what;
    FileType type;
    unsigned forbidden;         // mode bits that must be clear
    std::string_view exposure;  // who the forbidden bits let in, and what for
    bool removalOnly;           // whether only removing it is safe once others got in
    std::string_view chmodMode; // the mode to set when it is not
};

constexpr Rule DirectoryRule{"the cluster directory",
                             FileType::Directory,
                             022,
                             "writable by others, who may have planted files in it",
                             true,
                             "700"};
constexpr Rule DataRule{"the data directory",
                        FileType::Directory,
                        022,
                        "writable by others, who may have planted files in it",
                        true,
                        "700"};
constexpr Rule SocketRule{"the socket directory",
                          FileType::Directory,
                          077,
                          "open to others, who could connect as the superuser through its socket",
                          false,
                          "700"};
constexpr Rule LogRule{"the server log",
                       FileType::Regular,
                       022,
                       "writable by others, who may have planted a link in its place",
                       false,
                       "600"};
constexpr Rule PasswordRule{"the superuser's password file",
                            FileType::Regular,
                            077,
                            "readable by others, who may have the password",
                            true,
                            "600"};

// Why the entry at path, as info describes it, may not be used, with the fix; empty when it may.
// owner is the account it must belong to (nullopt: the caller).
std::string problemWith(const fs::path &path, const FileInfo &info, const Rule &rule,
                        const std::optional<Account> &owner, const std::string &linkTarget)
{
    const std::string where = std::string(rule.what) + " " + path.string();
    const bool directory = rule.type == FileType::Directory;
    const std::string remove = std::string(directory ? "rm -rf " : "rm ") + shellWord(path);
    if (info.type == FileType::SymbolicLink)
        return where + " is a symbolic link (to " + linkTarget + "): remove it (" + remove
               + ") or choose another directory for the cluster";
    if (info.type != rule.type)
        return where + " is not a " + (directory ? "directory" : "regular file") + ": remove it ("
               + remove + ")";
    if (!directory && info.links > 1)
        return where + " has " + std::to_string(info.links)
               + " hard links, one of which may be someone else's file: remove it (" + remove + ")";
    const unsigned caller = effectiveUserId();
    const unsigned expected = owner ? owner->uid : caller;
    const bool badMode = (info.mode & rule.forbidden) != 0;
    const std::string chmod = "chmod " + std::string(rule.chmodMode) + " " + shellWord(path);
    // Root may have made it for the server's account: then handing it over is the fix.
    const bool madeByRoot = owner && info.uid == 0;
    if (info.uid != expected && !madeByRoot)
        return where + " is mode " + octal(info.mode) + " and owned by " + ownerText(info.uid)
               + ", who may have planted it: remove it (" + remove
               + ", as root or its owner) or choose another directory for the cluster";
    if (madeByRoot && !(badMode && rule.removalOnly))
        return where + " is owned by " + ownerText(info.uid) + ", not by the server's account '"
               + owner->name + "': run: chown " + (directory ? "-R " : "") + owner->name + ": "
               + shellWord(path) + (badMode ? " && " + chmod : "");
    if (badMode) {
        std::string fix = "run: " + chmod;
        if (rule.removalOnly && directory)
            fix = "remove it (" + remove + ") or, if you trust what is in it, " + fix;
        else if (rule.removalOnly)
            fix = "remove it (" + remove + "); the next start sets a new password";
        return where + " is mode " + octal(info.mode) + ", " + std::string(rule.exposure) + ": "
               + fix;
    }
    return {};
}

} // namespace

bool ServerDirectory::Private::open(bool create)
{
    const unsigned caller = effectiveUserId();
    const unsigned owner = account ? account->uid : caller;
    std::vector<std::string> names;
    for (const fs::path &part : directory.relative_path())
        names.push_back(part.string());
    if (names.empty())
        throw DirectoryRefused("the cluster directory cannot be /: choose a directory of its own");

    // The parents that exist, then the cluster directory, each opened below the last: a link
    // anywhere is refused, as is a parent others could write to (they could swap what is below
    // it for a directory of theirs), unless it is sticky (/tmp) and what is below it is ours.
    std::optional<OpenDirectory> current = OpenDirectory::root();
    fs::path path = directory.root_path();
    std::size_t next = 0;
    for (; next < names.size(); ++next) {
        const std::string &name = names[next];
        const bool last = next + 1 == names.size();
        const fs::path at = path / name;
        const FileInfo found = current->infoOf(name);
        if (found.type == FileType::Missing)
            break;
        // A parent names the cluster directory too: that is what the caller chose.
        const std::string where = last ? "the cluster directory " + at.string()
                                       : at.string() + ", on the way to the cluster directory "
                                                  + directory.string() + ",";
        if (found.type == FileType::SymbolicLink)
            throw DirectoryRefused(where + " is a symbolic link (to " + current->linkTarget(name)
                                   + "): remove it (rm " + shellWord(at)
                                   + ") or give the cluster a path without symbolic links");
        if (found.type != FileType::Directory)
            throw DirectoryRefused(where
                                   + " exists and is not a directory: choose another directory for "
                                     "the cluster");
        try {
            current = current->open(name);
        } catch (const std::system_error &failure) {
            fail("cannot open", at, failure.code());
        }
        const FileInfo info = current->info();
        if (last) {
            if (const std::string problem = problemWith(at, info, DirectoryRule, account, {});
                !problem.empty())
                throw DirectoryRefused(problem);
        } else if (info.uid != 0 && info.uid != caller && info.uid != owner) {
            throw DirectoryRefused(where + " is owned by " + ownerText(info.uid)
                                   + ", who could replace what is below it: choose a directory "
                                     "elsewhere for the cluster");
        } else if ((info.mode & 022) != 0 && (info.mode & Sticky) == 0) {
            throw DirectoryRefused(
                    where + " is mode " + octal(info.mode)
                    + ", writable by others, who could replace what is below it: run: "
                      "chmod go-w "
                    + shellWord(at) + ", or choose a directory elsewhere");
        }
        path = at;
    }
    if (next < names.size()) {
        if (!create)
            return false;
        if (account)
            checkReachable();
        for (; next < names.size(); ++next) {
            const bool last = next + 1 == names.size();
            // The server's account must traverse the parents; the directory is its owner's alone.
            try {
                current = current->create(names[next], last || !account ? 0700 : 0755,
                                          last ? account : std::nullopt);
            } catch (const std::system_error &failure) {
                fail("cannot create", directory, failure.code());
            }
        }
    }
    handle = std::move(current);

    struct Entry
    {
        const char *name;
        const Rule &rule;
    };
    const Entry entries[] = {{"data", DataRule},
                             {"run", SocketRule},
                             {LogName, LogRule},
                             {PasswordName, PasswordRule}};
    // Everything checked before anything is made, so a refusal leaves the directory untouched.
    for (const Entry &entry : entries) {
        const FileInfo info = handle->infoOf(entry.name);
        if (info.type == FileType::Missing)
            continue;
        const std::string target
                = info.type == FileType::SymbolicLink ? handle->linkTarget(entry.name) : "";
        if (const std::string problem
            = problemWith(directory / entry.name, info, entry.rule, account, target);
            !problem.empty())
            throw DirectoryRefused(problem);
    }
    if (!create)
        return true;
    try {
        for (const char *name : {"data", "run"}) {
            if (handle->infoOf(name).type == FileType::Missing)
                handle->create(name, 0700, account);
        }
        // pg_ctl appends to it as the server's account.
        if (handle->infoOf(LogName).type == FileType::Missing)
            handle->createFile(LogName, "", 0600, account);
    } catch (const std::system_error &failure) {
        fail("cannot prepare", directory, failure.code());
    }
    return true;
}

std::optional<std::string> ServerDirectory::readPassword() const
{
    if (d->handle->infoOf(PasswordName).type == FileType::Missing)
        return std::nullopt;
    return d->handle->read(PasswordName);
}

void ServerDirectory::writePassword(const std::string &password)
{
    if (d->handle->infoOf(PasswordName).type != FileType::Missing)
        d->handle->remove(PasswordName); // empty
    // initdb reads it as the server's account; root still reads it for the caller.
    d->handle->createFile(PasswordName, password + "\n", 0600, d->account);
}

std::optional<std::string> ServerDirectory::readInData(const std::string &name) const
{
    if (d->handle->infoOf("data").type == FileType::Missing)
        return std::nullopt;
    const OpenDirectory data = d->handle->open("data");
    if (data.infoOf(name).type == FileType::Missing)
        return std::nullopt;
    return data.read(name);
}

std::uintmax_t ServerDirectory::logSize() const
{
    const FileInfo info = d->handle->infoOf(LogName);
    return info.type == FileType::Regular ? info.size : 0;
}

std::string ServerDirectory::logSince(std::uintmax_t offset) const
{
    try {
        return d->handle->read(LogName, offset);
    } catch (const std::system_error &) {
        return {};
    }
}

void ServerDirectory::Private::checkReachable() const
{
    std::error_code error;
    // What is still to be created will be the account's; what exists must let it through. A file
    // on the way is left for create_directories() to report.
    fs::path existing = directory;
    while (!fs::is_directory(existing, error) && existing.has_relative_path())
        existing = existing.parent_path();
    if (canTraverse(*account, existing))
        return;
    fs::path blocker;
    for (const fs::path &part : existing) {
        blocker /= part;
        if (!canTraverse(*account, blocker))
            break;
    }
    const std::string where = blocker == directory ? directory.string()
                                                   : directory.string() + " (" + blocker.string()
                                                             + " is closed to it)";
    throw DirectoryRefused("the server runs as '" + account->name + "', which cannot reach " + where
                           + ": choose a directory it can traverse (e.g. under /var/lib or /tmp)");
}

ServerDirectory::ServerDirectory(fs::path directory, std::optional<Account> account)
    : d(new Private{std::move(directory), std::move(account), std::nullopt})
{}

ServerDirectory::~ServerDirectory() = default;

bool ServerDirectory::open(bool create)
{
    return d->open(create);
}

} // namespace leader::platform
