#pragma once

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// Reading a benchmark's command line, and spelling a run out again for its reproduce line.
namespace bench {

// A command line the benchmark cannot run: main() prints it on one line and exits with Usage.
class UsageError final : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// One option as given: --name VALUE or --name=VALUE; a flag has no value.
struct Argument
{
    std::string name;
    std::string value;
};

struct CommandLine
{
    bool help = false;             // --help or -h: the rest was not read
    std::vector<Argument> options; // in the order given

    bool has(std::string_view name) const;
    // The value of the last --name given; nullopt when it was not given.
    std::optional<std::string> value(std::string_view name) const;
};

// Each of flags stands alone, each of valued takes a value; anything else is a UsageError.
CommandLine readCommandLine(int argc, char **argv, std::initializer_list<std::string_view> valued,
                            std::initializer_list<std::string_view> flags);

void throwNotWholeNumber(const std::string &option, const std::string &text,
                         const std::string &range);

// text as a whole number from minimum to maximum; else a UsageError naming option.
template<typename T>
T wholeNumber(const std::string &option, const std::string &text, T minimum,
              T maximum = std::numeric_limits<T>::max())
{
    T value{};
    const char *end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || value < minimum || value > maximum)
        throwNotWholeNumber(option, text,
                            maximum == std::numeric_limits<T>::max()
                                    ? "of at least " + std::to_string(minimum)
                                    : "from " + std::to_string(minimum) + " to "
                                              + std::to_string(maximum));
    return value;
}

// The parts of a comma-separated list, empty ones too unless skipEmpty.
std::vector<std::string> splitList(const std::string &text, bool skipEmpty = false);
std::string joinList(const std::vector<std::string> &parts);

// --seed when given, else one drawn for this run.
std::uint64_t seedOrRandom(const std::optional<std::uint64_t> &given);

// A run's command line spelled out, so that a later change of a default does not change what it
// repeats. Words are single-quoted unless plainly safe for a POSIX shell.
class ReproduceLine final
{
public:
    // launcher: the command the words follow as it is (e.g. a wrapper script and its options).
    explicit ReproduceLine(std::string launcher = {});

    void word(const std::string &word);
    void add(const std::string &option, const std::string &value);
    const std::string &text() const { return m_text; }

private:
    std::string m_text;
};

} // namespace bench
