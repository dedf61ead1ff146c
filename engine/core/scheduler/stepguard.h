#pragma once

#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace leader::scheduler {

class InjectedPanic final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// scheduler.Panics of ADR-114 (amendment 2026-10-19): each named step of a tick runs under the
// guard. A step that throws stops; the guard logs it with its step path (the guards it is nested
// in, outermost first: "billing > close period > subscription 42") and the rest of the steps run.
// A statement error (pg::Error: a timeout, a lost connection, any SQLSTATE) is that step's error
// return: logged, and nothing more. Any other exception is a panic: finish() throws the first one
// again, so the tick is released as failed. A cancelled tick (lease::TickCancelled) is neither:
// it passes straight through. Once a handover asked the tick on this thread to stop
// (lease::TickContext::requestStop), no further step runs: run() returns false at once.
class StepGuard final
{
public:
    explicit StepGuard(std::string name);
    ~StepGuard();
    StepGuard(const StepGuard &) = delete;
    StepGuard &operator=(const StepGuard &) = delete;

    // Returns whether the step ran to its end.
    bool run(std::string_view step, const std::function<void()> &body);
    // Whether a step panicked (statement errors do not count).
    bool failed() const { return static_cast<bool>(m_first); }
    void finish();

    // The path of the guards and steps running on this thread, outermost first.
    static std::string currentPath();

    // Fault injection ("panic ROLE STEP"): while armed on this thread, the first step whose name
    // starts with step throws InjectedPanic inside its guard, as a real defect in that step would.
    class ArmedPanic final
    {
    public:
        explicit ArmedPanic(std::string step);
        ~ArmedPanic();
        ArmedPanic(const ArmedPanic &) = delete;
        ArmedPanic &operator=(const ArmedPanic &) = delete;
        bool fired() const;

    private:
        std::string m_step;
    };

    // One entry of the path of the thread's guards and steps, on the stack of the guard or the
    // run() that it names, linked to the one it is nested in (stepguard.cpp says why not a
    // thread_local vector).
    struct Frame
    {
        std::string_view name;
        const Frame *outer = nullptr;
    };

private:
    std::string m_name;
    Frame m_frame;
    std::exception_ptr m_first;
};

} // namespace leader::scheduler
