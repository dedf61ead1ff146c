#include "stepguard.h"

#include "lease/tick.h"
#include "log/log.h"
#include "pg/error.h"

#include <utility>
#include <vector>

namespace leader::scheduler {

namespace {

// This thread's guards and steps, innermost first, each entry on the stack of the guard or run()
// that pushed it. The thread-local state here and in lease/tick.cpp is pointers and flags only,
// never an object with a destructor: MinGW-w64's GCC 12 runs thread_local destructors after its
// emulated TLS freed their storage (a use after free at every thread's end, which crashed
// leader-replica.exe's stop, seen under Wine).
using Frame = StepGuard::Frame;
thread_local const Frame *t_innermost = nullptr;
thread_local const std::string *t_armedPanic = nullptr;
thread_local bool t_panicFired = false;

// Pushes a frame for its own lifetime.
class PushedFrame final
{
public:
    explicit PushedFrame(std::string_view name)
        : m_frame{name, t_innermost}
    {
        t_innermost = &m_frame;
    }
    ~PushedFrame() { t_innermost = m_frame.outer; }
    PushedFrame(const PushedFrame &) = delete;
    PushedFrame &operator=(const PushedFrame &) = delete;

private:
    Frame m_frame;
};

// The path, outermost first.
std::string joined(const Frame *innermost)
{
    std::vector<std::string_view> parts;
    for (const Frame *frame = innermost; frame; frame = frame->outer)
        parts.push_back(frame->name);
    std::string path;
    for (auto part = parts.rbegin(); part != parts.rend(); ++part)
        path += (path.empty() ? "" : " > ") + std::string(*part);
    return path;
}

std::string describe(const std::exception_ptr &failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception &error) {
        return error.what();
    } catch (...) {
        return "an exception that is not a std::exception";
    }
}

} // namespace

StepGuard::StepGuard(std::string name)
    : m_name(std::move(name))
    , m_frame{m_name, t_innermost}
{
    t_innermost = &m_frame;
}

StepGuard::~StepGuard()
{
    t_innermost = m_frame.outer;
}

std::string StepGuard::currentPath()
{
    return joined(t_innermost);
}

bool StepGuard::run(std::string_view step, const std::function<void()> &body)
{
    // A handover asked the tick to end: no further step starts, and the tick is released as
    // interrupted. (Deleted once: tst_handover's handoverEndsTheTickAtAStepBoundary failed, every
    // step ran and the tick was released as completed.)
    if (const lease::TickContext *tick = lease::currentTick(); tick && tick->stopRequested()) {
        if (!tick->stoppedEarly())
            log::write(log::Level::Info, "scheduler", "handover: no further step starts",
                       "role=" + tick->role() + " step=\"" + joined(t_innermost)
                               + (t_innermost ? " > " : "") + std::string(step) + "\"");
        tick->noteStoppedEarly();
        return false;
    }
    // Before the try: the handlers below log and note the path with this step in it.
    const PushedFrame frame(step);
    try {
        if (t_armedPanic && step.starts_with(*t_armedPanic)) {
            t_armedPanic = nullptr;
            t_panicFired = true;
            throw InjectedPanic("injected panic in step \"" + std::string(step) + "\"");
        }
        body();
        return true;
    } catch (const lease::TickCancelled &) {
        throw;
    } catch (const pg::Error &error) {
        log::write(log::Level::Warning, "scheduler", "step failed on a statement; running the rest",
                   "step=\"" + joined(t_innermost) + "\" error=\"" + pg::explain(error) + "\"");
        lease::noteFailedStep(joined(t_innermost), pg::explain(error), false);
        return false;
    } catch (...) {
        // Logged once per guard the failure passes on its way up; the first line is the deepest.
        const std::string what = describe(std::current_exception());
        log::write(log::Level::Error, "scheduler", "step panicked; running the rest",
                   "step=\"" + joined(t_innermost) + "\" error=\"" + what + "\"");
        // Noted by the deepest guard first: its path names the step itself.
        lease::noteFailedStep(joined(t_innermost), what, true);
        if (!m_first)
            m_first = std::current_exception();
        return false;
    }
}

StepGuard::ArmedPanic::ArmedPanic(std::string step)
    : m_step(std::move(step))
{
    t_armedPanic = &m_step;
    t_panicFired = false;
}

StepGuard::ArmedPanic::~ArmedPanic()
{
    t_armedPanic = nullptr;
}

bool StepGuard::ArmedPanic::fired() const
{
    return t_panicFired;
}

void StepGuard::finish()
{
    if (m_first)
        std::rethrow_exception(std::exchange(m_first, nullptr));
}

} // namespace leader::scheduler
