#pragma once

#include "jsonwriter.h"
#include "scalerun.h"

#include <filesystem>
#include <ostream>
#include <string>

namespace bench::scale {

// The figures as Markdown tables: one per number of replicas, then the growth curve.
void printReport(std::ostream &out, const Results &results, const std::string &command);
// The machine, the command and every run's phases, takeovers and checks, as one JSON object.
void writeJson(JsonWriter &json, const Results &results, const std::string &command);

} // namespace bench::scale
