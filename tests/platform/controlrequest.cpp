// controlrequest PATH COMMAND: sends one command line to a leader-replica's control channel
// (--control PATH: a Unix socket, on Windows the named pipe named after PATH) and prints the
// reply line; exit 1 when it cannot be reached. Under Wine it is how scripts/windows-tools.sh
// stops and kills a leader-replica.exe through its named pipe, which Linux programs cannot open.
#include "platform/control.h"

#include <exception>
#include <iostream>

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: controlrequest PATH COMMAND\n";
        return 2;
    }
    try {
        std::cout << leader::platform::controlRequest(argv[1], argv[2]) << "\n";
    } catch (const std::exception &error) {
        std::cerr << "controlrequest: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
