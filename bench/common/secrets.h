#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bench {

// Takes the password out of each URL (which otherwise reads as before) and puts it in PGPASSWORD,
// which libpq reads for every connection whose URL has none: this process's own, and those of
// every child it starts, which inherit the environment. A child's command line (ps,
// /proc/PID/cmdline, readable by every local user) then never shows it. Call before any thread
// starts. Throws std::invalid_argument, naming no password, when the URLs carry different
// passwords or one differs from a PGPASSWORD already set: those belong in a passfile
// (PGPASSFILE, mode 0600), left out of the URLs.
void passwordsToEnvironment(const std::vector<std::string *> &urls);

// text with whatever secret any of urls carries replaced, for an error line.
std::string redactUrls(std::string text, const std::vector<std::string *> &urls);
// url with its secrets replaced, for a reproduce line.
std::string redactedUrl(const std::string &url);

// Takes the passwords of the run's URLs out of a text (a log line, an error) before it is shown.
using Redact = std::function<std::string(std::string)>;

// The Redact of every URL of options (which have urls()), as they stand when it is called.
template<typename Options>
Redact redactorOf(Options &options)
{
    return [&options](std::string text) {
        return redactUrls(std::move(text), options.urls());
    };
}

} // namespace bench
