#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace leader::metrics {

// Label name to value. Ordered by name, which is also the order the exposition writes them in.
using Labels = std::map<std::string, std::string, std::less<>>;

// A monotonically increasing value. Lock-free.
class Counter final
{
public:
    // Throws std::invalid_argument for a negative or NaN amount: a counter only goes up.
    void inc(double amount = 1.0);
    double value() const { return m_value.load(std::memory_order_relaxed); }

private:
    friend class Registry;
    std::atomic<double> m_value{0.0};
};

// A value that goes up and down. Lock-free.
class Gauge final
{
public:
    void set(double value) { m_value.store(value, std::memory_order_relaxed); }
    void add(double amount) { m_value.fetch_add(amount, std::memory_order_relaxed); }
    double value() const { return m_value.load(std::memory_order_relaxed); }

private:
    friend class Registry;
    std::atomic<double> m_value{0.0};
};

// Observations counted into fixed buckets by upper bound, plus their sum and count. One mutex per
// histogram, so a scrape reads buckets, sum and count that agree with each other.
class Histogram final
{
public:
    explicit Histogram(std::vector<double> upperBounds);

    void observe(double value);

    struct Snapshot
    {
        std::vector<std::uint64_t> cumulative; // one per upper bound, then +Inf (== count)
        double sum = 0;
        std::uint64_t count = 0;
    };
    Snapshot snapshot() const;
    const std::vector<double> &upperBounds() const { return m_upperBounds; }

private:
    friend class Registry;
    void reset();

    const std::vector<double> m_upperBounds;
    mutable std::mutex m_mutex;
    std::vector<std::uint64_t> m_counts; // per bucket, not cumulative; the last one is +Inf
    double m_sum = 0;
    std::uint64_t m_count = 0;
};

// A thread-safe set of metric families, written out in the Prometheus text format 0.0.4. A family
// is keyed by name and has one HELP, one TYPE and one set of label names; a series within it is
// keyed by its label values. Lookups create what is missing and return a reference that stays
// valid for the registry's lifetime. Misuse (an invalid name, a name reused with another type,
// help, label set or buckets) throws std::invalid_argument.
class Registry final
{
public:
    Registry();
    ~Registry();
    Registry(const Registry &) = delete;
    Registry &operator=(const Registry &) = delete;

    Counter &counter(std::string_view name, std::string_view help, const Labels &labels = {});
    Gauge &gauge(std::string_view name, std::string_view help, const Labels &labels = {});
    // upperBounds: finite and strictly increasing; the +Inf bucket is always added.
    Histogram &histogram(std::string_view name, std::string_view help, const Labels &labels,
                         std::vector<double> upperBounds);

    // Takes the series out of the exposition; unknown names and labels are ignored. The object
    // stays alive, so references to it never dangle; the next lookup of the same labels exports
    // it again, reset to zero, as a newly created series would be.
    void removeSeries(std::string_view name, const Labels &labels);

    // Families in name order, series in label order; a family with no series is left out.
    std::string exposition() const;

private:
    enum class Type { Counter, Gauge, Histogram };
    struct Series;
    struct Family;
    Series &series(std::string_view name, std::string_view help, Type type, const Labels &labels,
                   const std::vector<double> *upperBounds);

    mutable std::mutex m_mutex;
    std::map<std::string, std::unique_ptr<Family>, std::less<>> m_families;
};

// A sample value as the text format spells it: integers without an exponent while a double holds
// them exactly, otherwise the shortest text that reads back as the same double; +Inf, -Inf, NaN.
std::string formatValue(double value);

} // namespace leader::metrics
