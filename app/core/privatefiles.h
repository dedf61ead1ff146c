#pragma once

#include <QString>

namespace leader::console {

// The console's own files say which databases an operator watches, as whom, and what their roles
// did: only the user may read them, whatever the umask (issue 51). On Unix the directories the
// console owns are 0700 and its files 0600. On Windows Qt gives what these create an ACL like
// those modes and only clears the read-only flag of what exists; QSettings keeps the registry.

// Makes path a directory only its owner may enter (0700), made so at once when it is new; its
// parents are created with the umask and left alone: they may be shared (~/.config,
// ~/.local/share), so pass only a directory of the console's own.
bool ensurePrivateDirectory(const QString &path);

// Makes path a file only its owner may read or write (0600): created empty with that mode when
// absent, never readable by others even for a moment; narrowed when it exists (an older
// console's, made with the umask). On failure, error (if given) says why.
bool ensurePrivateFile(const QString &path, QString *error = nullptr);

// Narrows every file directly in directory to 0600, creating none: what an older console left.
// Best effort: those that cannot be changed are still in a directory of the console's own.
void narrowFilesIn(const QString &directory);

// Once at start, before anything is written: the data directory (AppDataLocation: the history,
// the drill reports) and, on Linux and the BSDs, the settings file (the profiles, the last one
// used, the preferences) and its directory (<config>/<organisation>, the console's own). QSettings
// rewrites the file through QSaveFile, which keeps the mode it finds. False, with a warning naming
// each path, when one could not be made private; the console runs on regardless.
bool ensurePrivateConsoleFiles();

} // namespace leader::console
