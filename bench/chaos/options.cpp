#include "options.h"

#include "arguments.h"
#include "secrets.h"

#include <optional>
#include <string_view>

namespace bench::chaos {

const char *const HelpText = R"(Usage: chaos-bench --database URL --replica-database URL
                   --bouncer-database URL --servers DIR [OPTIONS]

A chaos soak: K leader-replica processes run the five roles with the demo workload, some straight
to Postgres through a multi-host URL and some through PgBouncer, while faults land at seeded
random times: SIGKILL, SIGTERM, SIGSTOP, freeze, sever, slow and panic into replicas; a Postgres
restart and crash, a PgBouncer restart and RECONNECT, and a failover to an asynchronous standby
that missed the last commits into the database; and events that end sessions of live processes:
idle_session_timeout switched on and off, a reaper terminating the app's idle sessions, a proxy
cutting idle connections, and one holder's network cut off silently (network namespace, root
only). Two replicas run under a wall clock skewed by +1 h and -1 h (faketime). Afterwards it
checks the auditor, that no fencing token was issued twice, that no stale claim was accepted,
that every role ticked again after each database event and no tick was lost once the database
was back, that panicked counts only the injected panics, that no replica exited unless the
benchmark ended it, that no taken-over holder worked on after its successor acquired, that no
external effect was made twice by two holders at once, that no live holder was taken early, and
that no role starved during a session event; it prints the figures and writes them as JSON.
Every fault kind is injected at least once, however short the duration.

The servers are the benchmark's own (bench/chaos/servers.sh start DIR, as scripts/bench-chaos.sh
does): it restarts, crashes and fails them over. The database is migrated and emptied first.

Options:
  --database URL           owner URL naming every node, target_session_attrs=read-write
  --replica-database URL   the app login's URL naming every node: the direct replicas
  --bouncer-database URL   the app login through PgBouncer: the other replicas
  --proxy-ports P:N,...    the idle-cutting proxy listens on P, forwarding to node port N (default:
                           none, the idle-proxy event is skipped)
  --proxy-database URL     with --proxy-ports: the app login on every node through them
  --netns NAME             the network namespace r1 runs in (ip netns exec; default: none, r1
                           runs on loopback and the partition is skipped)
  --netns-database URL     with --netns: the app login on every node through the link's host end
  --netns-address ADDR     with --netns: r1's address inside, for its /metrics
  --servers DIR            the servers' directory (bench/chaos/servers.sh start DIR)
  --servers-script PATH    default: bench/chaos/servers.sh of the source tree it was built from
  --replicas K             replica processes, 3 to 5 (default 4)
  --duration S             seconds of faults (default 1800)
  --quick                  --duration 240 (CI)
  --seed N                 seed for the faults, their victims, times and lengths (default: random)
  --replica-binary PATH    leader-replica to run (default: the build tree's, then PATH)
  --leaderctl PATH         leaderctl for migrate, workload and audit (default: the same)
  --faketime-library PATH  libfaketime (default: Debian's libfaketimeMT.so.1)
  --json FILE              results file (default chaos-results.json)
  --launcher TEXT          the reproduce line starts with TEXT instead of this command
  --help

Exit codes: 0 the run finished and every correctness check held (figures are reported; the
targets, every role ticking within interval + 15 s of each event and memory growth under 10 %,
are judged only in a run of 30 minutes); 5 a check failed; 2 wrong arguments; 1 any other error.
)";

Options parseOptions(int argc, char **argv)
{
    const CommandLine commandLine = readCommandLine(
            argc, argv,
            {"--database", "--replica-database", "--bouncer-database", "--servers",
             "--servers-script", "--replicas", "--duration", "--seed", "--replica-binary",
             "--leaderctl", "--faketime-library", "--json", "--launcher", "--proxy-ports",
             "--proxy-database", "--netns", "--netns-database", "--netns-address"},
            {"--quick"});
    Options options;
    if (commandLine.help) {
        options.help = true;
        return options;
    }
    for (const Argument &argument : commandLine.options) {
        if (argument.name != "--quick" && argument.value.empty())
            throw UsageError(argument.name + " needs a value");
    }
    const auto given = [&](std::string_view name) {
        return commandLine.value(name).value_or("");
    };
    for (const char *required :
         {"--database", "--replica-database", "--bouncer-database", "--servers"}) {
        if (!commandLine.has(required))
            throw UsageError(std::string(required) + " is required");
    }
    options.quick = commandLine.has("--quick");
    if (options.quick && commandLine.has("--duration"))
        throw UsageError("--quick means --duration 240; give one or the other");
    options.databaseUrl = given("--database");
    options.replicaDatabaseUrl = given("--replica-database");
    options.bouncerDatabaseUrl = given("--bouncer-database");
    options.serversDirectory = given("--servers");
    options.proxyDatabaseUrl = given("--proxy-database");
    if (commandLine.has("--proxy-ports")) {
        for (const std::string &pair : splitList(given("--proxy-ports"))) {
            const std::size_t colon = pair.find(':');
            if (colon == std::string::npos)
                throw UsageError("--proxy-ports takes LISTEN:NODE pairs, not '" + pair + "'");
            options.proxyPorts.emplace_back(
                    wholeNumber(std::string("--proxy-ports"), pair.substr(0, colon), 1, 65535),
                    wholeNumber(std::string("--proxy-ports"), pair.substr(colon + 1), 1, 65535));
        }
    }
    if (options.proxyPorts.empty() != options.proxyDatabaseUrl.empty())
        throw UsageError("--proxy-ports and --proxy-database go together");
    options.netns = given("--netns");
    options.netnsDatabaseUrl = given("--netns-database");
    options.netnsAddress = given("--netns-address");
    if (!options.netns.empty()
        && (options.netnsDatabaseUrl.empty() || options.netnsAddress.empty()))
        throw UsageError("--netns needs --netns-database and --netns-address");
    options.serversScript = given("--servers-script");
    if (commandLine.has("--replicas"))
        options.replicas = wholeNumber(std::string("--replicas"), given("--replicas"), 3, 5);
    if (options.quick)
        options.duration = QuickDuration;
    else if (commandLine.has("--duration"))
        options.duration = std::chrono::seconds(
                wholeNumber(std::string("--duration"), given("--duration"), 1, 7 * 24 * 3600));
    std::optional<std::uint64_t> seed;
    if (commandLine.has("--seed"))
        seed = wholeNumber<std::uint64_t>("--seed", given("--seed"), 0);
    options.seed = seedOrRandom(seed);
    options.replicaBinary = given("--replica-binary");
    options.leaderctl = given("--leaderctl");
    options.faketimeLibrary = given("--faketime-library");
    if (commandLine.has("--json"))
        options.jsonFile = given("--json");
    options.launcher = given("--launcher");
    return options;
}

std::string reproduceCommand(const Options &options, const std::string &program)
{
    ReproduceLine line(options.launcher);
    if (options.launcher.empty()) {
        line.word(program);
        line.add("--database", redactedUrl(options.databaseUrl));
        line.add("--replica-database", redactedUrl(options.replicaDatabaseUrl));
        line.add("--bouncer-database", redactedUrl(options.bouncerDatabaseUrl));
        line.add("--servers", options.serversDirectory.string());
    }
    line.add("--replicas", std::to_string(options.replicas));
    line.add("--duration", std::to_string(options.duration.count()));
    line.add("--seed", std::to_string(options.seed));
    return line.text();
}

} // namespace bench::chaos
