#pragma once

#include "scalerun.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace scalebench {

// The figures as Markdown tables: one per number of replicas, then the growth curve.
void printReport(std::ostream &out, const Results &results, const std::string &command);
void writeJson(const std::filesystem::path &file, const Results &results,
               const std::string &command);

} // namespace scalebench
