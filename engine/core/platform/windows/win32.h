#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <winsock2.h>
// After winsock2.h: CMake defines WIN32_LEAN_AND_MEAN, so windows.h does not bring Winsock 1.
#include <windows.h>

// What the Windows files of the platform seam share: owned handles, UTF-8 and UTF-16, Win32 error
// codes as std::error_code, the security descriptor that keeps an object to the current user,
// and Winsock's start-up.
namespace leader::platform::win32 {

// An owned kernel handle, closed on destruction. Win32 reports "no handle" as null or as
// INVALID_HANDLE_VALUE depending on the function: neither is closed.
class Handle final
{
public:
    Handle() = default;
    explicit Handle(HANDLE handle)
        : m_handle(handle)
    {}
    ~Handle() { reset(); }
    Handle(Handle &&other) noexcept
        : m_handle(std::exchange(other.m_handle, nullptr))
    {}
    Handle &operator=(Handle &&other) noexcept
    {
        if (this != &other) {
            reset();
            m_handle = std::exchange(other.m_handle, nullptr);
        }
        return *this;
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;

    HANDLE get() const { return m_handle; }
    bool valid() const { return m_handle && m_handle != INVALID_HANDLE_VALUE; }
    void reset(HANDLE handle = nullptr)
    {
        if (valid())
            ::CloseHandle(m_handle);
        m_handle = handle;
    }

private:
    HANDLE m_handle = nullptr;
};

// The exit status of a process ended at once (killProcess, a timeout, killThisProcess):
// STATUS_CONTROL_C_EXIT, what Windows gives a console process ended by Ctrl+C. runProcess reports
// every NTSTATUS error status (a crash's too) as -1, as it reports a signal on Linux.
constexpr UINT KilledExitCode = 0xC000013A;

// Win32 and Winsock error codes, with the system's own messages: GCC 12's system_category()
// reads them as errno values on Windows.
const std::error_category &category();
std::error_code lastError();
[[noreturn]] void throwError(DWORD code, const std::string &what);
[[noreturn]] void throwLastError(const std::string &what);
// The system's message for code, on one line.
std::string errorText(DWORD code);

// The engine's strings are UTF-8; Win32's W functions take UTF-16.
std::wstring wide(std::string_view utf8);
std::string utf8(std::wstring_view text);

// A security descriptor owned by the user this process runs as, whose protected DACL allows that
// user alone: no group, no Everyone, no administrators, nothing inherited from a parent.
class PrivateSecurity final
{
public:
    PrivateSecurity();

    SECURITY_ATTRIBUTES *attributes() { return &m_attributes; }
    PACL dacl() const;

private:
    std::unique_ptr<void, decltype(&::LocalFree)> m_descriptor{nullptr, &::LocalFree};
    SECURITY_ATTRIBUTES m_attributes{};
};

// The current user's SID in its string form ("S-1-5-21-...").
std::wstring currentUserSid();

// Winsock must be started once per process before its first call; it is never cleaned up (the
// process's exit does).
void startWinsock();

} // namespace leader::platform::win32
