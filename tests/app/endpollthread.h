#pragma once

#include "core/consolesession.h"

#include <QThread>

namespace leader::test {

// Ends a session's poll thread before anything asks it to stop: the state a busy machine leaves
// when the thread ends between shutdown()'s quit() and its look at the thread.
inline bool endPollThreadFirst(console::ConsoleSession *session)
{
    auto *thread = session->findChild<QThread *>(QStringLiteral("status poller"));
    if (!thread)
        return false;
    thread->quit();
    return thread->wait(5000);
}

} // namespace leader::test
