#include "registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace leader::metrics {

namespace {

// Indexed by Registry::Type.
constexpr const char *TypeNames[] = {"counter", "gauge", "histogram"};

bool isNameStart(char c, bool colonAllowed)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
           || (colonAllowed && c == ':');
}

bool isValidName(std::string_view name, bool colonAllowed)
{
    if (name.empty() || !isNameStart(name.front(), colonAllowed))
        return false;
    return std::all_of(name.begin() + 1, name.end(), [colonAllowed](char c) {
        return isNameStart(c, colonAllowed) || (c >= '0' && c <= '9');
    });
}

void checkMetricName(std::string_view name)
{
    if (!isValidName(name, true))
        throw std::invalid_argument("metric name \"" + std::string(name)
                                    + "\" does not match [a-zA-Z_:][a-zA-Z0-9_:]*");
}

// Colons are for metric names only, "__" is reserved for Prometheus' own labels, and "le" is the
// bucket label a histogram adds itself.
void checkLabelName(std::string_view metric, std::string_view label, bool histogram)
{
    const std::string where
            = "metric " + std::string(metric) + ": label name \"" + std::string(label) + "\" ";
    if (!isValidName(label, false))
        throw std::invalid_argument(where + "does not match [a-zA-Z_][a-zA-Z0-9_]*");
    if (label.starts_with("__"))
        throw std::invalid_argument(where + "is reserved (starts with __)");
    if (histogram && label == "le")
        throw std::invalid_argument(where + "is reserved for histogram buckets");
}

void checkUpperBounds(std::string_view metric, const std::vector<double> &upperBounds)
{
    const bool finite = std::all_of(upperBounds.begin(), upperBounds.end(),
                                    [](double bound) { return std::isfinite(bound); });
    const bool increasing
            = std::adjacent_find(upperBounds.begin(), upperBounds.end(), std::greater_equal<>())
              == upperBounds.end();
    if (!finite || !increasing)
        throw std::invalid_argument("histogram " + std::string(metric)
                                    + ": bucket bounds must be finite and strictly increasing "
                                      "(the +Inf bucket is implicit)");
}

std::vector<std::string> labelNames(const Labels &labels)
{
    std::vector<std::string> names;
    names.reserve(labels.size());
    for (const auto &[name, value] : labels)
        names.push_back(name);
    return names;
}

std::string joined(const std::vector<std::string> &names)
{
    std::string text = "{";
    for (const std::string &name : names)
        text += (text.size() > 1 ? "," : "") + name;
    return text + "}";
}

// HELP escapes backslash and newline; a label value also escapes the double quote around it.
void appendEscaped(std::string &out, std::string_view text, bool labelValue)
{
    for (const char c : text) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' && labelValue)
            out += "\\\"";
        else
            out += c;
    }
}

void appendSample(std::string &out, std::string_view name, const Labels &labels,
                  std::string_view le, std::string_view value)
{
    out += name;
    if (!labels.empty() || !le.empty()) {
        out += '{';
        bool first = true;
        for (const auto &[label, labelValue] : labels) {
            if (!first)
                out += ',';
            first = false;
            out += label;
            out += "=\"";
            appendEscaped(out, labelValue, true);
            out += '"';
        }
        if (!le.empty()) {
            out += first ? "le=\"" : ",le=\"";
            out += le;
            out += '"';
        }
        out += '}';
    }
    out += ' ';
    out += value;
    out += '\n';
}

} // namespace

void Counter::inc(double amount)
{
    if (!(amount >= 0))
        throw std::invalid_argument("a counter only increases: cannot add " + formatValue(amount));
    m_value.fetch_add(amount, std::memory_order_relaxed);
}

Histogram::Histogram(std::vector<double> upperBounds)
    : m_upperBounds(std::move(upperBounds))
    , m_counts(m_upperBounds.size() + 1)
{}

void Histogram::observe(double value)
{
    // "value > bound" rather than "bound < value", so NaN lands in +Inf instead of the first
    // bucket.
    const auto bucket = std::partition_point(m_upperBounds.begin(), m_upperBounds.end(),
                                             [value](double bound) { return !(value <= bound); });
    const std::lock_guard lock(m_mutex);
    ++m_counts[static_cast<std::size_t>(bucket - m_upperBounds.begin())];
    m_sum += value;
    ++m_count;
}

Histogram::Snapshot Histogram::snapshot() const
{
    Snapshot snapshot;
    const std::lock_guard lock(m_mutex);
    snapshot.cumulative.reserve(m_counts.size());
    std::uint64_t running = 0;
    for (const std::uint64_t count : m_counts)
        snapshot.cumulative.push_back(running += count);
    snapshot.sum = m_sum;
    snapshot.count = m_count;
    return snapshot;
}

void Histogram::reset()
{
    const std::lock_guard lock(m_mutex);
    std::fill(m_counts.begin(), m_counts.end(), 0);
    m_sum = 0;
    m_count = 0;
}

struct Registry::Series
{
    template<typename T, typename... Args>
    explicit Series(std::in_place_type_t<T> type, Args &&...args)
        : metric(type, std::forward<Args>(args)...)
    {}

    std::variant<Counter, Gauge, Histogram> metric;
    bool exported = true;
};

struct Registry::Family
{
    Type type;
    std::string help;
    std::vector<std::string> labelNames;
    std::vector<double> upperBounds;
    std::map<Labels, std::unique_ptr<Series>> series;
};

Registry::Registry() = default;
Registry::~Registry() = default;

Counter &Registry::counter(std::string_view name, std::string_view help, const Labels &labels)
{
    return std::get<Counter>(series(name, help, Type::Counter, labels, nullptr).metric);
}

Gauge &Registry::gauge(std::string_view name, std::string_view help, const Labels &labels)
{
    return std::get<Gauge>(series(name, help, Type::Gauge, labels, nullptr).metric);
}

Histogram &Registry::histogram(std::string_view name, std::string_view help, const Labels &labels,
                               std::vector<double> upperBounds)
{
    return std::get<Histogram>(series(name, help, Type::Histogram, labels, &upperBounds).metric);
}

Registry::Series &Registry::series(std::string_view name, std::string_view help, Type type,
                                   const Labels &labels, const std::vector<double> *upperBounds)
{
    checkMetricName(name);
    for (const auto &[label, value] : labels)
        checkLabelName(name, label, type == Type::Histogram);

    const std::lock_guard lock(m_mutex);
    auto familyIt = m_families.find(name);
    if (familyIt == m_families.end()) {
        if (upperBounds)
            checkUpperBounds(name, *upperBounds);
        auto family = std::make_unique<Family>(
                Family{.type = type,
                       .help = std::string(help),
                       .labelNames = labelNames(labels),
                       .upperBounds = upperBounds ? *upperBounds : std::vector<double>()});
        familyIt = m_families.emplace(std::string(name), std::move(family)).first;
    }
    Family &family = *familyIt->second;
    const std::string where = "metric " + std::string(name) + ": ";
    if (family.type != type)
        throw std::invalid_argument(where + "registered as a "
                                    + TypeNames[static_cast<int>(family.type)] + ", not a "
                                    + TypeNames[static_cast<int>(type)]);
    if (family.help != help)
        throw std::invalid_argument(where + "help differs from its first registration");
    if (const auto names = labelNames(labels); names != family.labelNames)
        throw std::invalid_argument(where + "label names are " + joined(family.labelNames)
                                    + ", not " + joined(names));
    if (upperBounds && *upperBounds != family.upperBounds)
        throw std::invalid_argument(where + "bucket bounds differ from its first registration");

    auto seriesIt = family.series.find(labels);
    if (seriesIt == family.series.end()) {
        std::unique_ptr<Series> created;
        switch (type) {
        case Type::Counter:
            created = std::make_unique<Series>(std::in_place_type<Counter>);
            break;
        case Type::Gauge:
            created = std::make_unique<Series>(std::in_place_type<Gauge>);
            break;
        case Type::Histogram:
            created = std::make_unique<Series>(std::in_place_type<Histogram>, family.upperBounds);
            break;
        }
        seriesIt = family.series.emplace(labels, std::move(created)).first;
    } else if (!seriesIt->second->exported) {
        std::visit(
                [](auto &metric) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(metric)>, Histogram>)
                        metric.reset();
                    else
                        metric.m_value.store(0.0, std::memory_order_relaxed);
                },
                seriesIt->second->metric);
        seriesIt->second->exported = true;
    }
    return *seriesIt->second;
}

void Registry::removeSeries(std::string_view name, const Labels &labels)
{
    const std::lock_guard lock(m_mutex);
    const auto familyIt = m_families.find(name);
    if (familyIt == m_families.end())
        return;
    const auto seriesIt = familyIt->second->series.find(labels);
    if (seriesIt != familyIt->second->series.end())
        seriesIt->second->exported = false;
}

std::string Registry::exposition() const
{
    std::string out;
    const std::lock_guard lock(m_mutex);
    for (const auto &[name, family] : m_families) {
        const auto &series = family->series;
        if (std::none_of(series.begin(), series.end(),
                         [](const auto &entry) { return entry.second->exported; }))
            continue;
        out += "# HELP " + name + ' ';
        appendEscaped(out, family->help, false);
        out += "\n# TYPE " + name + ' ' + TypeNames[static_cast<int>(family->type)] + '\n';
        for (const auto &[labels, entry] : series) {
            if (!entry->exported)
                continue;
            if (const auto *counter = std::get_if<Counter>(&entry->metric)) {
                appendSample(out, name, labels, {}, formatValue(counter->value()));
            } else if (const auto *gauge = std::get_if<Gauge>(&entry->metric)) {
                appendSample(out, name, labels, {}, formatValue(gauge->value()));
            } else {
                const Histogram &histogram = std::get<Histogram>(entry->metric);
                const Histogram::Snapshot snapshot = histogram.snapshot();
                const std::vector<double> &bounds = histogram.upperBounds();
                for (std::size_t i = 0; i < snapshot.cumulative.size(); ++i) {
                    const std::string le = i < bounds.size() ? formatValue(bounds[i]) : "+Inf";
                    appendSample(out, name + "_bucket", labels, le,
                                 std::to_string(snapshot.cumulative[i]));
                }
                appendSample(out, name + "_sum", labels, {}, formatValue(snapshot.sum));
                appendSample(out, name + "_count", labels, {}, std::to_string(snapshot.count));
            }
        }
    }
    return out;
}

std::string formatValue(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    // 2^53: up to here every integer is exactly a double, so the digits are exact.
    constexpr double MaxExactInteger = 9007199254740992.0;
    char buffer[32];
    std::to_chars_result written;
    if (std::trunc(value) == value && std::fabs(value) <= MaxExactInteger)
        written = std::to_chars(buffer, buffer + sizeof buffer, static_cast<std::int64_t>(value));
    else
        written = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, written.ptr);
}

} // namespace leader::metrics
