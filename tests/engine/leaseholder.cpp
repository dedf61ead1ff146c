// A process that leads one role and then holds it, renewing, until it is killed: the victim of
// the killed-leader tests. Prints "acquired <token>" once it leads. With MARKER_URL (a direct
// connection) its fast-wake listener's session is its marker, as a replica's is (migration 0179).
//   leaseholder URL ROLE [MARKER_URL]

#include "lease/manager.h"
#include "lease/wakelistener.h"

#include <cstdio>
#include <iostream>
#include <memory>

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        std::cerr << "usage: leaseholder URL ROLE [MARKER_URL]\n";
        return 2;
    }
    leader::lease::EventBus events;
    events.subscribe([](const leader::lease::TransitionEvent &event) {
        if (event.kind == leader::lease::EventKind::Acquired)
            std::cout << "acquired " << event.token << std::endl;
    });
    leader::lease::Manager manager({.database = {.url = argv[1]}, .events = &events});
    std::unique_ptr<leader::lease::WakeListener> listener;
    if (argc == 4) {
        listener = std::make_unique<leader::lease::WakeListener>(
                leader::pg::ConnectOptions{.url = argv[3]}, nullptr, manager.holderId(),
                &manager.marker());
        if (!listener->start() || !manager.marker().key()) {
            std::cerr << "leaseholder: no marker session on " << argv[3] << "\n";
            return 1;
        }
    }
    try {
        const auto result = manager.lead(argv[2], std::chrono::milliseconds(0),
                                         [](leader::lease::TickContext &context) {
                                             context.sleepFor(std::chrono::minutes(10));
                                         });
        return result.acquired ? 0 : 1;
    } catch (const std::exception &error) {
        std::cerr << "leaseholder: " << error.what() << "\n";
        return 1;
    }
}
