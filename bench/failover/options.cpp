#include "options.h"

#include "arguments.h"
#include "pg/conninfo.h"
#include "secrets.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace bench::failover {

namespace {

std::vector<Fault> faultList(const std::string &text)
{
    std::vector<Fault> faults;
    for (const std::string &name : splitList(text)) {
        const std::optional<Fault> fault = leader::faults::faultFromName(name);
        if (!fault || std::find(std::begin(Faults), std::end(Faults), *fault) == std::end(Faults))
            throw UsageError(
                    "unknown fault '" + name
                    + "' in --faults; faults are sigkill, sigterm, sigstop, freeze, sever, pause");
        if (std::find(faults.begin(), faults.end(), *fault) != faults.end())
            throw UsageError("--faults names " + name + " twice");
        faults.push_back(*fault);
    }
    return faults;
}

} // namespace

const char *const HelpText = R"(Usage: failover-bench --database URL [OPTIONS]

Runs K leader-replica processes (billing only, ~30 s ticks) against one database and, for each
fault, injects it T times into the billing holder mid-tick (SIGKILL and SIGTERM at an instant
drawn uniformly over the tick's first 29 s, the others 3-8 s in), then measures the takeover on
the database clock. Prints p50/p95/max per fault and metric, each SIGKILL's and SIGTERM's
instant in the tick beside its figure, the stale claims the fence refused and accepted, and the
auditor's verdict; writes the samples as JSON.

The database is the benchmark's own: it is migrated (lease and demo sets), its lease rows are
reset and its demo tables are emptied before the run.

Options:
  --database URL           owner URL: setup, polling, pause and audit (default DATABASE_URL, then
                           the PG* variables)
  --replica-database URL   URL the replicas use (default: --database), e.g. a PgBouncer URL
  --listen-database URL    passed to the replicas as --listen-database (a direct connection for
                           the fast wake when --replica-database is a pooler)
  --replicas K             replica processes (default 3, at least 2)
  --trials T               trials per fault (default 20)
  --quick                  2 trials per fault (CI)
  --faults LIST            comma-separated from sigkill,sigterm,sigstop,freeze,sever,pause
                           (default all; freeze: the replica's in-process freeze, which lets the
                           statement it was about to send go out stale, for the fence to refuse)
  --stop-seconds S         how long a SIGSTOPped or frozen holder stays stopped (default 20)
  --sever-seconds S        how long a severed holder stays cut off (default 15)
  --replica-binary PATH    leader-replica to run (default: the build tree's, then PATH)
  --json FILE              results file (default failover-results.json)
  --label TEXT             free text for the table and the JSON, e.g. direct or pgbouncer
  --seed N                 seed for the tick ages at which faults land (default: random)
  --design D               lease (default), advisory or both. advisory runs the replicas with
                           --gate advisory: the session advisory lock ADR-114 replaced, each tick
                           logging unfenced claims in claim_log; pause cannot be expressed there
                           and is reported so; no domain work, so no drain and no audit. both
                           runs lease, then advisory, on the same servers, writes FILE-lease.json
                           and FILE-advisory.json for --json FILE, and prints one table of both
                           with the ratios. Stale claims fail only a lease run: with no fence,
                           an advisory run counts them
  --help

Exit codes: 0 the run finished and every correctness check held (speed is reported, not
enforced); 5 a correctness check failed; 2 wrong arguments; 1 any other error.
)";

Options parseOptions(int argc, char **argv)
{
    const CommandLine commandLine = readCommandLine(
            argc, argv,
            {"--database", "--replica-database", "--listen-database", "--replicas", "--trials",
             "--faults", "--stop-seconds", "--sever-seconds", "--replica-binary", "--json",
             "--label", "--seed", "--design"},
            {"--quick"});
    Options options;
    if (commandLine.help) {
        options.help = true;
        return options;
    }
    std::string databaseUrl;
    std::optional<std::uint64_t> seed;
    for (const auto &[arg, value] : commandLine.options) {
        if (arg == "--database") {
            databaseUrl = value;
        } else if (arg == "--replica-database") {
            options.replicaDatabaseUrl = value;
        } else if (arg == "--listen-database") {
            options.listenDatabaseUrl = value;
        } else if (arg == "--replicas") {
            options.replicas = wholeNumber(arg, value, 2);
        } else if (arg == "--trials") {
            options.trials = wholeNumber(arg, value, 1);
        } else if (arg == "--faults") {
            options.faults = faultList(value);
        } else if (arg == "--stop-seconds") {
            options.stopSeconds = wholeNumber(arg, value, 1);
        } else if (arg == "--sever-seconds") {
            options.severSeconds = wholeNumber(arg, value, 1);
        } else if (arg == "--replica-binary") {
            if (value.empty())
                throw UsageError("--replica-binary needs a path");
            options.replicaBinary = value;
        } else if (arg == "--json") {
            if (value.empty())
                throw UsageError("--json needs a file name");
            options.jsonFile = value;
        } else if (arg == "--label") {
            options.label = value;
        } else if (arg == "--seed") {
            seed = wholeNumber<std::uint64_t>(arg, value, 0);
        } else if (arg == "--design") {
            if (value == "lease")
                options.designs = {Design::Lease};
            else if (value == "advisory")
                options.designs = {Design::Advisory};
            else if (value == "both")
                options.designs = {Design::Lease, Design::Advisory};
            else
                throw UsageError("--design is lease, advisory or both, not '" + value + "'");
        }
    }
    if (commandLine.has("--quick")) {
        if (commandLine.has("--trials"))
            throw UsageError("--quick means --trials 2; give one or the other");
        options.trials = 2;
    }
    options.databaseUrl = leader::pg::databaseUrlFrom(databaseUrl);
    options.seed = seedOrRandom(seed);
    options.design = options.designs.front();
    return options;
}

std::string_view designName(Design design)
{
    return design == Design::Lease ? "lease" : "advisory";
}

std::filesystem::path jsonFileFor(const Options &options, Design design)
{
    if (options.designs.size() == 1)
        return options.jsonFile;
    std::filesystem::path file = options.jsonFile;
    const std::string extension = file.has_extension() ? file.extension().string() : ".json";
    file.replace_extension();
    file += "-" + std::string(designName(design)) + extension;
    return file;
}

std::string reproduceCommand(const Options &options, const std::string &program)
{
    ReproduceLine line;
    line.word(program);
    if (!options.databaseUrl.empty())
        line.add("--database", redactedUrl(options.databaseUrl));
    if (!options.replicaDatabaseUrl.empty())
        line.add("--replica-database", redactedUrl(options.replicaDatabaseUrl));
    if (!options.listenDatabaseUrl.empty())
        line.add("--listen-database", redactedUrl(options.listenDatabaseUrl));
    line.add("--replicas", std::to_string(options.replicas));
    line.add("--trials", std::to_string(options.trials));
    std::vector<std::string> faults;
    for (const Fault fault : options.faults)
        faults.emplace_back(nameOf(fault));
    line.add("--faults", joinList(faults));
    line.add("--stop-seconds", std::to_string(options.stopSeconds));
    line.add("--sever-seconds", std::to_string(options.severSeconds));
    if (!options.replicaBinary.empty())
        line.add("--replica-binary", options.replicaBinary.string());
    line.add("--json", options.jsonFile.string());
    if (!options.label.empty())
        line.add("--label", options.label);
    line.add("--design",
             options.designs.size() > 1 ? "both" : std::string(designName(options.design)));
    line.add("--seed", std::to_string(options.seed));
    return line.text();
}

} // namespace bench::failover
