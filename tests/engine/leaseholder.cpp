// A process that leads one role and then holds it, renewing, until it is killed: the victim of
// the killed-leader test. Prints "acquired <token>" once it leads.
//   leaseholder URL ROLE

#include "lease/manager.h"

#include <cstdio>
#include <iostream>

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::cerr << "usage: leaseholder URL ROLE\n";
        return 2;
    }
    leader::lease::EventBus events;
    events.subscribe([](const leader::lease::TransitionEvent &event) {
        if (event.kind == leader::lease::EventKind::Acquired)
            std::cout << "acquired " << event.token << std::endl;
    });
    leader::lease::Manager manager({.database = {.url = argv[1]}, .events = &events});
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
