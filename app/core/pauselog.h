#pragma once

#include "core/statustypes.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

#include <stop_token>

namespace leader::console {

// One row of leader_pause_log (migration 0177), its instants on the database clock.
struct PauseLogEntry
{
    qint64 id = 0;
    QString role;
    PauseAction action = PauseAction::Pause;
    QDateTime at;
    QString login; // the database login (session_user)
    QString by;    // as typed; empty for an expiry or a bare leader_unpause(role)
    QString reason;
    QDateTime until;      // a pause's planned end
    QDateTime endedPause; // an unpause's or expiry's pause, when it was made
};

// How far back the History view reads; every role, newest first.
enum class PauseLogSince { Hour, Day, Week, All };

struct PauseLogResult
{
    QList<PauseLogEntry> entries; // newest first
    // One line when the database has no pause log (an older schema): not an error.
    QString unavailable;
    QString error;          // one line when the read failed
    bool truncated = false; // MaxPauseLogEntries were read: older ones exist
};

inline constexpr int MaxPauseLogEntries = 5000;

// Reads the pause log over a session of its own, blocking for at most the connect's and the
// statements' deadlines; stop ends it within 50 ms. For the poller's thread, never the GUI's.
PauseLogResult readPauseLog(const QString &conninfo, std::stop_token stop, PauseLogSince since);

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::PauseLogSince)
Q_DECLARE_METATYPE(leader::console::PauseLogResult)
