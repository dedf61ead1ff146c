#pragma once

#include <chrono>

namespace leader::platform {

enum class WaitFor { Read, Write };
enum class WaitResult { Ready, TimedOut, Failed };

// Waits until the socket is ready for the given direction, at most timeout. With sockets.cpp the
// only place the engine touches the OS socket API.
WaitResult waitSocket(int socket, WaitFor direction, std::chrono::milliseconds timeout);

} // namespace leader::platform
