#pragma once

#include <string>

namespace leader::lease {

// Who a pause or an unpause is recorded as when the operator names nobody: one rule for leaderctl
// and the console, so the pause log names the same person whichever was used. The login's name
// (USER, else LOGNAME, else USERNAME as Windows sets it, else the effective user's account entry,
// else "operator"), "@", and the host name up to its first dot.
std::string defaultWho();

} // namespace leader::lease
