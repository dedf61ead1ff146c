#include "benchmain.h"

#include "arguments.h"
#include "host.h"
#include "pg/error.h"
#include "secrets.h"

#include <iostream>
#include <stdexcept>

namespace bench {

int runProgram(int argc, char **argv, const Program &program)
{
    const std::string prefix = program.name + ": ";
    try {
        if (program.parse(argc, argv)) {
            std::cout << program.helpText;
            return Ok;
        }
        passwordsToEnvironment(program.urls());
    } catch (const UsageError &error) {
        std::cerr << prefix << error.what() << " (see " << program.name << " --help)\n";
        return Usage;
    } catch (const std::invalid_argument &error) {
        std::cerr << prefix << error.what() << "\n";
        return Usage;
    }
    installSignalHandlers();
    try {
        return program.run(argc > 0 ? argv[0] : program.name);
    } catch (const Interrupted &) {
        std::cerr << prefix << "interrupted; " << program.afterInterrupt << "\n";
        if (program.workDirectory) {
            std::error_code ignored;
            std::filesystem::remove_all(*program.workDirectory, ignored);
        }
        return Error;
    } catch (const leader::pg::Error &error) {
        std::cerr << prefix << leader::pg::explain(error) << "\n";
    } catch (const std::exception &error) {
        std::cerr << prefix << redactUrls(error.what(), program.urls()) << "\n";
    }
    if (program.failed)
        program.failed();
    return Error;
}

} // namespace bench
