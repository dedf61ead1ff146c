#include "arguments.h"

#include <algorithm>
#include <cctype>
#include <random>

namespace bench {

namespace {

std::string shellWord(const std::string &word)
{
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c))
               || std::string_view("-_./:=@,+%").find(c) != std::string_view::npos;
    });
    if (plain)
        return word;
    std::string quoted = "'";
    for (const char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

} // namespace

bool CommandLine::has(std::string_view name) const
{
    return std::any_of(options.begin(), options.end(),
                       [&](const Argument &argument) { return argument.name == name; });
}

std::optional<std::string> CommandLine::value(std::string_view name) const
{
    const auto last = std::find_if(options.rbegin(), options.rend(),
                                   [&](const Argument &argument) { return argument.name == name; });
    if (last == options.rend())
        return std::nullopt;
    return last->value;
}

CommandLine readCommandLine(int argc, char **argv, std::initializer_list<std::string_view> valued,
                            std::initializer_list<std::string_view> flags)
{
    CommandLine commandLine;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            commandLine.help = true;
            return commandLine;
        }
        if (std::find(flags.begin(), flags.end(), arg) != flags.end()) {
            commandLine.options.push_back({arg, {}});
            continue;
        }
        std::string value;
        const std::size_t equals = arg.find('=');
        const bool inlineValue = arg.rfind("--", 0) == 0 && equals != std::string::npos;
        if (inlineValue) {
            value = arg.substr(equals + 1);
            arg.resize(equals);
        }
        if (std::find(valued.begin(), valued.end(), arg) == valued.end())
            throw UsageError(arg.rfind("--", 0) == 0 ? "unknown option " + arg
                                                     : "unexpected argument '" + arg + "'");
        if (!inlineValue) {
            if (i + 1 >= argc)
                throw UsageError(arg + " needs a value");
            value = argv[++i];
        }
        commandLine.options.push_back({std::move(arg), std::move(value)});
    }
    return commandLine;
}

void throwNotWholeNumber(const std::string &option, const std::string &text,
                         const std::string &range)
{
    throw UsageError(option + " must be a whole number " + range + ", not '" + text + "'");
}

std::vector<std::string> splitList(const std::string &text, bool skipEmpty)
{
    std::vector<std::string> parts;
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string part = text.substr(start, comma - start);
        if (!part.empty() || !skipEmpty)
            parts.push_back(std::move(part));
        start = comma + 1;
    }
    return parts;
}

std::string joinList(const std::vector<std::string> &parts)
{
    std::string text;
    for (const std::string &part : parts)
        text += (text.empty() ? "" : ",") + part;
    return text;
}

std::uint64_t seedOrRandom(const std::optional<std::uint64_t> &given)
{
    return given ? *given : std::random_device()();
}

ReproduceLine::ReproduceLine(std::string launcher)
    : m_text(std::move(launcher))
{}

void ReproduceLine::word(const std::string &word)
{
    m_text += (m_text.empty() ? "" : " ") + shellWord(word);
}

void ReproduceLine::add(const std::string &option, const std::string &value)
{
    word(option);
    word(value);
}

} // namespace bench
