#pragma once

// leaderctl's exit codes; drain and handover add their own (draincommands.h, handovercommand.h).
namespace leaderctl {

enum ExitCode {
    Ok = 0,
    Failed = 1,          // the database refused or failed the operation
    Usage = 2,           // wrong arguments
    SchemaProblem = 3,   // lease (or demo) schema missing, or migrations this build lacks
    Unreachable = 4,     // cannot connect
    InvariantFailed = 5, // audit: at least one invariant does not hold
};

} // namespace leaderctl
