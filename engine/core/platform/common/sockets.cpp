#include "platform/sockets.h"

#include <utility>

namespace leader::platform {

// What does not depend on the system; close() does, and each system's sockets.cpp has it.

Socket::~Socket()
{
    close();
}

Socket::Socket(Socket &&other) noexcept
    : m_handle(std::exchange(other.m_handle, -1))
{}

Socket &Socket::operator=(Socket &&other) noexcept
{
    if (this != &other) {
        close();
        m_handle = std::exchange(other.m_handle, -1);
    }
    return *this;
}

} // namespace leader::platform
