#pragma once

#include "options.h"
#include "results.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace failoverbench {

struct ReportContext
{
    const Options &options;
    std::string target;  // where the replicas connect, without a password
    std::string command; // reproduces the run, passwords replaced
    std::filesystem::path logDirectory;
};

// The table and the verdict lines, for stdout.
void printReport(std::ostream &out, const RunResults &results, const ReportContext &context);

// Every sample, the summary, the machine and the settings. Throws std::runtime_error when the
// file cannot be written.
void writeJson(const std::filesystem::path &file, const RunResults &results,
               const ReportContext &context);

} // namespace failoverbench
