#pragma once

#include <QCloseEvent>

namespace leader::console {

// A window whose workers still run closes only when they have ended: the first close asked for
// starts the shutdown (true), and the window closes itself again when it is over. With no worker
// running it closes at once; a close asked for while shutting down is refused (both false).
inline bool startShutdownOnClose(QCloseEvent *event, bool workersRunning, bool &closing)
{
    if (!workersRunning) {
        event->accept();
        return false;
    }
    event->ignore();
    if (closing)
        return false;
    closing = true;
    return true;
}

} // namespace leader::console
