#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace leader::platform {

// The system's resolver for TcpAddress::resolve (common/sockets.cpp), implemented in each
// system's sockets.cpp: every stream address host:port resolves to, in the resolver's order, as
// its sockaddr bytes and family. Throws std::runtime_error with the resolver's message.
void lookUpAddresses(
        const std::string &host, int port,
        const std::function<void(const void *sockaddr, std::size_t length, int family)> &each);

} // namespace leader::platform
