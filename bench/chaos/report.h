#pragma once

#include "chaos.h"
#include "options.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace chaosbench {

struct ReportContext
{
    const Options &options;
    std::string command; // reproduces the run, passwords replaced
    std::filesystem::path logDirectory;
};

// The figures, the checks and the reproduce line, for stdout.
void printReport(std::ostream &out, const RunResults &results, const ReportContext &context);

// The settings, every fault and database event, the figures and the checks. Throws
// std::runtime_error when the file cannot be written.
void writeJson(const std::filesystem::path &file, const RunResults &results,
               const ReportContext &context);

} // namespace chaosbench
