#include "platform/sockets.h"

#include "lookup.h"

#include <cstring>
#include <stdexcept>
#include <utility>

namespace leader::platform {

// What does not depend on the system; close() and the resolver's call (lookup.h) do, and each
// system's sockets.cpp has them.

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

std::vector<TcpAddress> TcpAddress::resolve(const std::string &host, int port)
{
    std::vector<TcpAddress> addresses;
    lookUpAddresses(host, port, [&](const void *sockaddr, std::size_t length, int family) {
        TcpAddress address;
        address.m_length = static_cast<unsigned>(length);
        address.m_family = family;
        std::memcpy(address.m_storage.data(), sockaddr, length);
        addresses.push_back(address);
    });
    if (addresses.empty())
        throw std::runtime_error("cannot resolve " + host + ": no address");
    return addresses;
}

} // namespace leader::platform
