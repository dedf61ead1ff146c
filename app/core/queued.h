#pragma once

#include <QMetaObject>
#include <QObject>
#include <QPointer>

#include <utility>

namespace leader::console {

// The one way app/ hands work to another thread: to a worker (the poller, the demo host, the
// history writer) from the GUI thread, or back. f (a functor, or a member function of context's
// class) runs in context's thread from its event loop, after the calls already queued there, and
// not at all if context is destroyed first. Never blocks; whatever f captures is copied across.
template<typename Object, typename F>
void postTo(Object *context, F &&f)
{
    QMetaObject::invokeMethod(context, std::forward<F>(f), Qt::QueuedConnection);
}

template<typename Object, typename F>
void postTo(const QPointer<Object> &context, F &&f)
{
    postTo(context.get(), std::forward<F>(f));
}

} // namespace leader::console
