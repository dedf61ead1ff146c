#pragma once

#include <QtGlobal>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace leader::test {

// A loopback port that never serves Postgres, held open for the test's lifetime so no other
// process can take it. Bound without listening, the kernel refuses every connection; listening
// without accepting, it completes the handshake and then stays silent.
class LoopbackPort final
{
public:
    enum class Behaviour { Refuse, Silent };

    explicit LoopbackPort(Behaviour behaviour)
        : m_socket(::socket(AF_INET, SOCK_STREAM, 0))
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (m_socket < 0
            || ::bind(m_socket, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
            || (behaviour == Behaviour::Silent && ::listen(m_socket, 16) != 0)
            || ::getsockname(m_socket, reinterpret_cast<sockaddr *>(&address), &length) != 0)
            qFatal("cannot bind a loopback port");
        m_port = ntohs(address.sin_port);
    }
    ~LoopbackPort() { ::close(m_socket); }
    LoopbackPort(const LoopbackPort &) = delete;
    LoopbackPort &operator=(const LoopbackPort &) = delete;

    int port() const { return m_port; }

    // Silent: whether a connect has reached it within the time, and left waiting to be accepted.
    bool connectArrives(int withinMs) const
    {
        pollfd pending{m_socket, POLLIN, 0};
        return ::poll(&pending, 1, withinMs) == 1;
    }
    // Silent: how many connects reached it since the last call (each is accepted and closed).
    int takeConnects() const
    {
        int count = 0;
        for (; connectArrives(0); ++count) {
            const int accepted = ::accept(m_socket, nullptr, nullptr);
            if (accepted < 0)
                break;
            ::close(accepted);
        }
        return count;
    }

private:
    int m_socket;
    int m_port = 0;
};

} // namespace leader::test
