#include "stepguard.h"

#include "lease/tick.h"
#include "log/log.h"
#include "pg/error.h"

#include <optional>
#include <utility>
#include <vector>

namespace leader::scheduler {

namespace {

thread_local std::vector<std::string> t_path;
thread_local std::optional<std::string> t_armedPanic;
thread_local bool t_panicFired = false;

std::string joined(const std::vector<std::string> &parts)
{
    std::string path;
    for (const std::string &part : parts)
        path += (path.empty() ? "" : " > ") + part;
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
{
    t_path.push_back(m_name);
}

StepGuard::~StepGuard()
{
    t_path.pop_back();
}

std::string StepGuard::currentPath()
{
    return joined(t_path);
}

bool StepGuard::run(std::string_view step, const std::function<void()> &body)
{
    // A handover asked the tick to end: no further step starts, and the tick is released as
    // interrupted. (Deleted once: tst_handover's handoverEndsTheTickAtAStepBoundary failed, every
    // step ran and the tick was released as completed.)
    if (const lease::TickContext *tick = lease::currentTick(); tick && tick->stopRequested()) {
        if (!tick->stoppedEarly())
            log::write(log::Level::Info, "scheduler", "handover: no further step starts",
                       "role=" + tick->role() + " step=\"" + joined(t_path)
                               + (t_path.empty() ? "" : " > ") + std::string(step) + "\"");
        tick->noteStoppedEarly();
        return false;
    }
    t_path.emplace_back(step);
    try {
        if (t_armedPanic && step.starts_with(*t_armedPanic)) {
            t_armedPanic.reset();
            t_panicFired = true;
            throw InjectedPanic("injected panic in step \"" + std::string(step) + "\"");
        }
        body();
        t_path.pop_back();
        return true;
    } catch (const lease::TickCancelled &) {
        t_path.pop_back();
        throw;
    } catch (const pg::Error &error) {
        log::write(log::Level::Warning, "scheduler", "step failed on a statement; running the rest",
                   "step=\"" + joined(t_path) + "\" error=\"" + pg::explain(error) + "\"");
        lease::noteFailedStep(joined(t_path), pg::explain(error), false);
        t_path.pop_back();
        return false;
    } catch (...) {
        // Logged once per guard the failure passes on its way up; the first line is the deepest.
        const std::string what = describe(std::current_exception());
        log::write(log::Level::Error, "scheduler", "step panicked; running the rest",
                   "step=\"" + joined(t_path) + "\" error=\"" + what + "\"");
        // Noted by the deepest guard first: its path names the step itself.
        lease::noteFailedStep(joined(t_path), what, true);
        t_path.pop_back();
        if (!m_first)
            m_first = std::current_exception();
        return false;
    }
}

StepGuard::ArmedPanic::ArmedPanic(std::string step)
{
    t_armedPanic = std::move(step);
    t_panicFired = false;
}

StepGuard::ArmedPanic::~ArmedPanic()
{
    t_armedPanic.reset();
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
