#pragma once

#include <string>
#include <vector>

namespace failoverbench {

// Takes the password out of each URL (which otherwise reads as before) and puts it in PGPASSWORD,
// which libpq reads for every connection whose URL has none: this process's own, and those of
// every child it starts, which inherit the environment. A child's command line (ps,
// /proc/PID/cmdline, readable by every local user) then never shows it. Call before any thread
// starts. Throws std::invalid_argument, naming no password, when the URLs carry different
// passwords or one differs from a PGPASSWORD already set: those belong in a passfile
// (PGPASSFILE, mode 0600), left out of the URLs.
void passwordsToEnvironment(const std::vector<std::string *> &urls);

} // namespace failoverbench
