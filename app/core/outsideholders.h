#pragma once

#include "core/registrytypes.h"

#include <QString>

#include <stop_token>

namespace leader::console {

// The holders outside the replica registry seen in the last hour (extension 0189), read over a
// session of their own as the pause log is: of one role, or of the roles the live replica named
// replica runs. Each blocks for at most the connect's and the statement's deadlines, and stop
// ends it: for the poller's thread, never the GUI's.
OutsideHolders readOutsideHoldersOfRole(const QString &conninfo, std::stop_token stop,
                                        const QString &role);
OutsideHolders readOutsideHoldersOfReplica(const QString &conninfo, std::stop_token stop,
                                           const QString &replica);

} // namespace leader::console
