#include "win32.h"

#include <vector>

// After windows.h, which they assume.
#include <sddl.h>

namespace leader::platform::win32 {

namespace {

class Win32Category final : public std::error_category
{
public:
    const char *name() const noexcept override { return "win32"; }
    std::string message(int code) const override { return errorText(static_cast<DWORD>(code)); }
};

} // namespace

const std::error_category &category()
{
    static const Win32Category instance;
    return instance;
}

std::error_code lastError()
{
    return {static_cast<int>(::GetLastError()), category()};
}

void throwError(DWORD code, const std::string &what)
{
    throw std::system_error(static_cast<int>(code), category(), what);
}

void throwLastError(const std::string &what)
{
    throwError(::GetLastError(), what);
}

std::string errorText(DWORD code)
{
    wchar_t *buffer = nullptr;
    const DWORD length = ::FormatMessageW(
            FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM
                    | FORMAT_MESSAGE_IGNORE_INSERTS | FORMAT_MESSAGE_MAX_WIDTH_MASK,
            nullptr, code, 0, reinterpret_cast<wchar_t *>(&buffer), 0, nullptr);
    const std::unique_ptr<void, decltype(&::LocalFree)> owned(buffer, &::LocalFree);
    std::string text = length ? utf8(std::wstring_view(buffer, length)) : std::string();
    while (!text.empty() && (text.back() == ' ' || text.back() == '.'))
        text.pop_back();
    return text.empty() ? "error " + std::to_string(code) : text;
}

std::wstring wide(std::string_view utf8)
{
    if (utf8.empty())
        return {};
    const int size = static_cast<int>(utf8.size());
    const int length = ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), size, nullptr, 0);
    if (length <= 0)
        throwLastError("not UTF-8: " + std::string(utf8));
    std::wstring text(static_cast<std::size_t>(length), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, utf8.data(), size, text.data(), length);
    return text;
}

std::string utf8(std::wstring_view text)
{
    if (text.empty())
        return {};
    const int size = static_cast<int>(text.size());
    const int length
            = ::WideCharToMultiByte(CP_UTF8, 0, text.data(), size, nullptr, 0, nullptr, nullptr);
    if (length <= 0)
        return {};
    std::string converted(static_cast<std::size_t>(length), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, text.data(), size, converted.data(), length, nullptr,
                          nullptr);
    return converted;
}

std::wstring currentUserSid()
{
    HANDLE opened = nullptr;
    if (!::OpenProcessToken(::GetCurrentProcess(), TOKEN_QUERY, &opened))
        throwLastError("OpenProcessToken");
    const Handle token(opened);
    DWORD size = 0;
    ::GetTokenInformation(token.get(), TokenUser, nullptr, 0, &size);
    std::vector<unsigned char> buffer(size);
    if (!::GetTokenInformation(token.get(), TokenUser, buffer.data(), size, &size))
        throwLastError("GetTokenInformation");
    wchar_t *text = nullptr;
    if (!::ConvertSidToStringSidW(reinterpret_cast<const TOKEN_USER *>(buffer.data())->User.Sid,
                                  &text))
        throwLastError("ConvertSidToStringSid");
    const std::unique_ptr<void, decltype(&::LocalFree)> owned(text, &::LocalFree);
    return text;
}

PrivateSecurity::PrivateSecurity()
{
    const std::wstring user = currentUserSid();
    // Owner: the user. DACL, protected (P) from inheritance: one ACE allowing (A) all file
    // access (FA), which for a named pipe is connecting, reading and writing, to the user.
    const std::wstring sddl = L"O:" + user + L"D:P(A;;FA;;;" + user + L")";
    PSECURITY_DESCRIPTOR descriptor = nullptr;
    if (!::ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1,
                                                                &descriptor, nullptr))
        throwLastError("security descriptor for " + utf8(user));
    m_descriptor.reset(descriptor);
    m_attributes.nLength = sizeof m_attributes;
    m_attributes.lpSecurityDescriptor = descriptor;
    m_attributes.bInheritHandle = FALSE;
}

PACL PrivateSecurity::dacl() const
{
    BOOL present = FALSE;
    BOOL defaulted = FALSE;
    PACL acl = nullptr;
    ::GetSecurityDescriptorDacl(m_descriptor.get(), &present, &acl, &defaulted);
    return acl;
}

void startWinsock()
{
    static const int started = [] {
        WSADATA data{};
        return ::WSAStartup(MAKEWORD(2, 2), &data);
    }();
    if (started != 0)
        throwError(static_cast<DWORD>(started), "WSAStartup");
}

} // namespace leader::platform::win32
