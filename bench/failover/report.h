#pragma once

#include "jsonwriter.h"
#include "options.h"
#include "results.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace bench::failover {

struct ReportContext
{
    const Options &options;
    std::string target;  // where the replicas connect, without a password
    std::string command; // reproduces the run, passwords replaced
    std::filesystem::path logDirectory;
};

// The table and the verdict lines, for stdout.
void printReport(std::ostream &out, const RunResults &results, const ReportContext &context);

// One Markdown table of both designs' runs, fault by fault and metric by metric, with the ratios.
void printComparison(std::ostream &out, const RunResults &lease, const RunResults &advisory);

// Every sample, the summary, the machine and the settings, as one JSON object.
void writeJson(JsonWriter &json, const RunResults &results, const ReportContext &context);

} // namespace bench::failover
