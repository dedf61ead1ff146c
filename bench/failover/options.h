#pragma once

#include "faults/fault.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace bench::failover {

using leader::faults::Fault;
using leader::faults::nameOf;

// The faults this benchmark injects, in the order it runs them by default.
inline constexpr Fault Faults[] = {Fault::SigKill, Fault::SigTerm, Fault::SigStop,
                                   Fault::Freeze,  Fault::Sever,   Fault::Pause};

// How the replicas gate each tick: ADR-114's lease, or the session advisory lock it replaced
// (leader-replica --gate advisory), measured beside it.
enum class Design { Lease, Advisory };

std::string_view designName(Design design);

struct Options
{
    std::string databaseUrl;        // the owner: migrate, reset, poll, pause, audit
    std::string replicaDatabaseUrl; // what the replicas use; empty: databaseUrl
    std::string listenDatabaseUrl;  // passed on as --listen-database; empty: not passed
    int replicas = 3;
    int trials = 20;
    std::vector<Fault> faults{std::begin(Faults), std::end(Faults)};
    int stopSeconds = 20;
    int severSeconds = 15;
    std::filesystem::path replicaBinary; // empty: found next to this binary, then in PATH
    std::filesystem::path jsonFile = "failover-results.json";
    std::string label;
    // --design: lease, advisory, or both, one after the other on the same servers.
    std::vector<Design> designs{Design::Lease};
    // The design this run measures (one of designs).
    Design design = Design::Lease;
    // Picks each trial's tick age at the fault; printed so a run's fault instants can be repeated.
    std::uint64_t seed = 0;
    bool help = false;

    const std::string &replicaUrl() const
    {
        return replicaDatabaseUrl.empty() ? databaseUrl : replicaDatabaseUrl;
    }
    std::vector<std::string *> urls()
    {
        return {&databaseUrl, &replicaDatabaseUrl, &listenDatabaseUrl};
    }
};

// Throws UsageError. A seed is drawn when --seed is not given.
Options parseOptions(int argc, char **argv);

// The JSON file of one design's run: --json itself for one design; FILE-lease.json and
// FILE-advisory.json (FILE without its extension) for both.
std::filesystem::path jsonFileFor(const Options &options, Design design);

extern const char *const HelpText;

// The command that repeats this run with every setting spelled out (so a later change of a
// default does not change what it measures), passwords replaced by ***.
std::string reproduceCommand(const Options &options, const std::string &program);

} // namespace bench::failover
