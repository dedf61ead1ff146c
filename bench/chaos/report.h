#pragma once

#include "chaos.h"
#include "jsonwriter.h"
#include "options.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace bench::chaos {

struct ReportContext
{
    const Options &options;
    std::string command; // reproduces the run, passwords replaced
    std::filesystem::path logDirectory;
};

// The figures, the checks and the reproduce line, for stdout.
void printReport(std::ostream &out, const RunResults &results, const ReportContext &context);

// Every setting, fault and database event, the figures and the checks, as one JSON object.
void writeJson(JsonWriter &json, const RunResults &results, const ReportContext &context);

} // namespace bench::chaos
