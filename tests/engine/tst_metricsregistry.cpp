// leader::metrics::Registry without a database: the exact Prometheus text format 0.0.4 it writes
// (HELP and TYPE once per family, ordering, escaping, histogram buckets, number spelling), series
// removal, name validation, and exact counts under concurrent updates.

#include "metrics/registry.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

using leader::metrics::Counter;
using leader::metrics::Gauge;
using leader::metrics::Histogram;
using leader::metrics::Labels;
using leader::metrics::Registry;

using Setup = std::function<void(Registry &)>;
Q_DECLARE_METATYPE(Setup)

namespace {

constexpr double Inf = std::numeric_limits<double>::infinity();
constexpr double NaN = std::numeric_limits<double>::quiet_NaN();

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

} // namespace

class TestMetricsRegistry final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exposition_data();
    void exposition();
    void formatValue_data();
    void formatValue();
    void removedSeriesKeepsItsObject();
    void removingWhatIsNotThereIsHarmless();
    void referencesSurviveGrowth();
    void invalidUseThrows_data();
    void invalidUseThrows();
    void validNamesAreAccepted();
    void concurrentIncrementsAreExact();
    void concurrentSeriesCreation();
};

void TestMetricsRegistry::exposition_data()
{
    QTest::addColumn<Setup>("setup");
    QTest::addColumn<QString>("expected");

    QTest::newRow("empty registry") << Setup([](Registry &) {}) << QString();
    QTest::newRow("counter without labels")
            << Setup([](Registry &r) { r.counter("jobs_total", "Jobs done.").inc(3); })
            << QString("# HELP jobs_total Jobs done.\n"
                       "# TYPE jobs_total counter\n"
                       "jobs_total 3\n");
    QTest::newRow("counter exists at zero once looked up")
            << Setup([](Registry &r) {
                   r.counter("lost_total", "Lost.", {{"role", "billing"}});
               })
            << QString("# HELP lost_total Lost.\n"
                       "# TYPE lost_total counter\n"
                       "lost_total{role=\"billing\"} 0\n");
    QTest::newRow("labels in name order") << Setup([](Registry &r) {
        r.gauge("temp", "T.", {{"zone", "b"}, {"area", "a"}}).set(-1.5);
    })
                                          << QString("# HELP temp T.\n"
                                                     "# TYPE temp gauge\n"
                                                     "temp{area=\"a\",zone=\"b\"} -1.5\n");
    QTest::newRow("series in label order, HELP and TYPE once") << Setup([](Registry &r) {
        r.gauge("up", "Up.", {{"role", "b"}}).set(2);
        r.gauge("up", "Up.", {{"role", "a"}}).set(1);
        r.gauge("up", "Up.", {{"role", "a"}}).add(0.5);
    })
                                                               << QString("# HELP up Up.\n"
                                                                          "# TYPE up gauge\n"
                                                                          "up{role=\"a\"} 1.5\n"
                                                                          "up{role=\"b\"} 2\n");
    QTest::newRow("families in name order") << Setup([](Registry &r) {
        r.gauge("zeta", "Z.").set(1);
        r.counter("alpha_total", "A.").inc();
    })
                                            << QString("# HELP alpha_total A.\n"
                                                       "# TYPE alpha_total counter\n"
                                                       "alpha_total 1\n"
                                                       "# HELP zeta Z.\n"
                                                       "# TYPE zeta gauge\n"
                                                       "zeta 1\n");
    QTest::newRow("label value escaping") << Setup([](Registry &r) {
        r.gauge("g", "G.", {{"path", "C:\\dir \"x\"\nnext"}}).set(1);
    }) << QString(R"(# HELP g G.
# TYPE g gauge
g{path="C:\\dir \"x\"\nnext"} 1
)");
    QTest::newRow("help escaping leaves quotes alone")
            << Setup([](Registry &r) { r.gauge("g", "one\\two \"three\"\nfour").set(0); })
            << QString(R"(# HELP g one\\two "three"\nfour
# TYPE g gauge
g 0
)");
    QTest::newRow("special values") << Setup([](Registry &r) {
        r.gauge("g", "G.", {{"v", "a"}}).set(Inf);
        r.gauge("g", "G.", {{"v", "b"}}).set(-Inf);
        r.gauge("g", "G.", {{"v", "c"}}).set(NaN);
    })
                                    << QString("# HELP g G.\n"
                                               "# TYPE g gauge\n"
                                               "g{v=\"a\"} +Inf\n"
                                               "g{v=\"b\"} -Inf\n"
                                               "g{v=\"c\"} NaN\n");
    QTest::newRow("histogram with labels") << Setup([](Registry &r) {
        Histogram &h = r.histogram("rt_seconds", "RT.", {{"role", "dunning"}}, {0.5, 1, 2.5});
        for (const double value : {0.25, 0.5, 0.75, 3.0})
            h.observe(value);
    })
                                           << QString("# HELP rt_seconds RT.\n"
                                                      "# TYPE rt_seconds histogram\n"
                                                      "rt_seconds_bucket{role=\"dunning\",le=\"0."
                                                      "5\"} 2\n"
                                                      "rt_seconds_bucket{role=\"dunning\",le=\"1\"}"
                                                      " 3\n"
                                                      "rt_seconds_bucket{role=\"dunning\",le=\"2."
                                                      "5\"} 3\n"
                                                      "rt_seconds_bucket{role=\"dunning\",le=\"+"
                                                      "Inf\"} 4\n"
                                                      "rt_seconds_sum{role=\"dunning\"} 4.5\n"
                                                      "rt_seconds_count{role=\"dunning\"} 4\n");
    QTest::newRow("histogram without labels or observations")
            << Setup([](Registry &r) { r.histogram("h", "H.", {}, {0.001}); })
            << QString("# HELP h H.\n"
                       "# TYPE h histogram\n"
                       "h_bucket{le=\"0.001\"} 0\n"
                       "h_bucket{le=\"+Inf\"} 0\n"
                       "h_sum 0\n"
                       "h_count 0\n");
    QTest::newRow("histogram: NaN counts in +Inf only")
            << Setup([](Registry &r) { r.histogram("h", "H.", {}, {1}).observe(NaN); })
            << QString("# HELP h H.\n"
                       "# TYPE h histogram\n"
                       "h_bucket{le=\"1\"} 0\n"
                       "h_bucket{le=\"+Inf\"} 1\n"
                       "h_sum NaN\n"
                       "h_count 1\n");
    QTest::newRow("removed series left out") << Setup([](Registry &r) {
        r.gauge("age", "Age.", {{"role", "x"}}).set(1);
        r.gauge("age", "Age.", {{"role", "y"}}).set(2);
        r.removeSeries("age", {{"role", "y"}});
    })
                                             << QString("# HELP age Age.\n"
                                                        "# TYPE age gauge\n"
                                                        "age{role=\"x\"} 1\n");
    QTest::newRow("family with every series removed left out") << Setup([](Registry &r) {
        r.gauge("age", "Age.", {{"role", "x"}}).set(1);
        r.removeSeries("age", {{"role", "x"}});
        r.histogram("h", "H.", {}, {1}).observe(1);
        r.removeSeries("h", {});
    }) << QString();
    QTest::newRow("looked up again after removal: back at zero")
            << Setup([](Registry &r) {
                   r.counter("c_total", "C.").inc(7);
                   r.removeSeries("c_total", {});
                   r.counter("c_total", "C.");
                   r.histogram("h", "H.", {}, {1}).observe(0.5);
                   r.removeSeries("h", {});
                   r.histogram("h", "H.", {}, {1});
               })
            << QString("# HELP c_total C.\n"
                       "# TYPE c_total counter\n"
                       "c_total 0\n"
                       "# HELP h H.\n"
                       "# TYPE h histogram\n"
                       "h_bucket{le=\"1\"} 0\n"
                       "h_bucket{le=\"+Inf\"} 0\n"
                       "h_sum 0\n"
                       "h_count 0\n");
}

void TestMetricsRegistry::exposition()
{
    QFETCH(Setup, setup);
    QFETCH(QString, expected);
    Registry registry;
    setup(registry);
    QCOMPARE(qs(registry.exposition()), expected);
}

void TestMetricsRegistry::formatValue_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("zero") << 0.0 << "0";
    QTest::newRow("negative zero") << -0.0 << "0";
    QTest::newRow("one") << 1.0 << "1";
    QTest::newRow("minus 42") << -42.0 << "-42";
    QTest::newRow("a million, no exponent") << 1e6 << "1000000";
    QTest::newRow("2^53, the last exact integer") << 9007199254740992.0 << "9007199254740992";
    QTest::newRow("2^54, shortest text") << 18014398509481984.0 << "18014398509481984";
    QTest::newRow("1e20") << 1e20 << "1e+20";
    QTest::newRow("half") << 0.5 << "0.5";
    QTest::newRow("a tenth") << 0.1 << "0.1";
    QTest::newRow("shortest round trip") << 0.1 + 0.2 << "0.30000000000000004";
    QTest::newRow("small") << 1e-5 << "1e-05";
    QTest::newRow("fraction with integer part") << 123456.789 << "123456.789";
    QTest::newRow("+Inf") << Inf << "+Inf";
    QTest::newRow("-Inf") << -Inf << "-Inf";
    QTest::newRow("NaN") << NaN << "NaN";
}

void TestMetricsRegistry::formatValue()
{
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(qs(leader::metrics::formatValue(value)), expected);
}

void TestMetricsRegistry::removedSeriesKeepsItsObject()
{
    Registry registry;
    Gauge &age = registry.gauge("age", "Age.", {{"role", "billing"}});
    age.set(42);
    registry.removeSeries("age", {{"role", "billing"}});
    // A stale reference still works but exports nothing until the series is looked up again.
    age.set(7);
    QCOMPARE(qs(registry.exposition()), QString());

    Gauge &again = registry.gauge("age", "Age.", {{"role", "billing"}});
    QCOMPARE(&again, &age);
    QCOMPARE(again.value(), 0.0);
    age.set(3);
    QVERIFY(registry.exposition().ends_with("age{role=\"billing\"} 3\n"));
}

void TestMetricsRegistry::removingWhatIsNotThereIsHarmless()
{
    Registry registry;
    registry.gauge("age", "Age.", {{"role", "billing"}}).set(1);
    registry.removeSeries("nothing", {});
    registry.removeSeries("age", {{"role", "dunning"}});
    registry.removeSeries("age", {});
    registry.removeSeries("age", {{"role", "billing"}});
    registry.removeSeries("age", {{"role", "billing"}});
    QCOMPARE(qs(registry.exposition()), QString());
}

void TestMetricsRegistry::referencesSurviveGrowth()
{
    Registry registry;
    Counter &first = registry.counter("first_total", "F.", {{"n", "0"}});
    first.inc(5);
    for (int i = 0; i < 1000; ++i) {
        registry.counter("first_total", "F.", {{"n", std::to_string(i + 1)}}).inc();
        registry.gauge("g" + std::to_string(i), "G.").set(i);
    }
    QCOMPARE(&registry.counter("first_total", "F.", {{"n", "0"}}), &first);
    QCOMPARE(first.value(), 5.0);
}

void TestMetricsRegistry::invalidUseThrows_data()
{
    QTest::addColumn<Setup>("misuse");
    QTest::addColumn<QString>("message");

    QTest::newRow("metric name starts with a digit")
            << Setup([](Registry &r) { r.counter("1jobs", "J."); }) << "[a-zA-Z_:][a-zA-Z0-9_:]*";
    QTest::newRow("metric name with a dash")
            << Setup([](Registry &r) { r.gauge("lease-age", "A."); }) << "lease-age";
    QTest::newRow("empty metric name")
            << Setup([](Registry &r) { r.histogram("", "H.", {}, {1}); }) << "metric name \"\"";
    QTest::newRow("label name with a colon") << Setup([](Registry &r) {
        r.gauge("g", "G.", {{"a:b", "x"}});
    }) << "[a-zA-Z_][a-zA-Z0-9_]*";
    QTest::newRow("label name starts with a digit") << Setup([](Registry &r) {
        r.gauge("g", "G.", {{"0role", "x"}});
    }) << "\"0role\"";
    QTest::newRow("empty label name") << Setup([](Registry &r) {
        r.gauge("g", "G.", {{"", "x"}});
    }) << "label name \"\"";
    QTest::newRow("reserved label name") << Setup([](Registry &r) {
        r.gauge("g", "G.", {{"__name__", "x"}});
    }) << "reserved";
    QTest::newRow("le on a histogram") << Setup([](Registry &r) {
        r.histogram("h", "H.", {{"le", "1"}}, {1});
    }) << "reserved for histogram buckets";
    QTest::newRow("a counter looked up as a gauge") << Setup([](Registry &r) {
        r.counter("x", "X.");
        r.gauge("x", "X.");
    }) << "registered as a counter, not a gauge";
    QTest::newRow("a gauge looked up as a histogram") << Setup([](Registry &r) {
        r.gauge("x", "X.");
        r.histogram("x", "X.", {}, {1});
    }) << "registered as a gauge, not a histogram";
    QTest::newRow("help changes") << Setup([](Registry &r) {
        r.gauge("x", "X.");
        r.gauge("x", "Y.");
    }) << "help differs";
    QTest::newRow("label names change") << Setup([](Registry &r) {
        r.gauge("x", "X.", {{"role", "a"}});
        r.gauge("x", "X.", {{"role", "a"}, {"state", "ok"}});
    }) << "label names are {role}, not {role,state}";
    QTest::newRow("bucket bounds not increasing") << Setup([](Registry &r) {
        r.histogram("h", "H.", {}, {1, 1});
    }) << "strictly increasing";
    QTest::newRow("bucket bounds decreasing") << Setup([](Registry &r) {
        r.histogram("h", "H.", {}, {2, 1});
    }) << "strictly increasing";
    QTest::newRow("+Inf bucket given") << Setup([](Registry &r) {
        r.histogram("h", "H.", {}, {1, Inf});
    }) << "+Inf bucket is implicit";
    QTest::newRow("NaN bucket bound")
            << Setup([](Registry &r) { r.histogram("h", "H.", {}, {NaN}); }) << "finite";
    QTest::newRow("bucket bounds change") << Setup([](Registry &r) {
        r.histogram("h", "H.", {{"role", "a"}}, {1});
        r.histogram("h", "H.", {{"role", "b"}}, {2});
    }) << "bucket bounds differ";
    QTest::newRow("counter decreases")
            << Setup([](Registry &r) { r.counter("c_total", "C.").inc(-1); }) << "cannot add -1";
    QTest::newRow("counter adds NaN")
            << Setup([](Registry &r) { r.counter("c_total", "C.").inc(NaN); }) << "cannot add NaN";
}

void TestMetricsRegistry::invalidUseThrows()
{
    QFETCH(Setup, misuse);
    QFETCH(QString, message);
    Registry registry;
    try {
        misuse(registry);
        QFAIL("no exception");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(qs(error.what()).contains(message), error.what());
    }
}

void TestMetricsRegistry::validNamesAreAccepted()
{
    Registry registry;
    registry.gauge("job:lease_age:max", "Recording-rule style.", {{"_le", "1"}, {"le", "2"}})
            .set(1);
    registry.counter("_x9_total", "Underscore first.", {{"R0le_", "a"}}).inc();
    registry.histogram("h", "No buckets but +Inf.", {}, {}).observe(1);
    QCOMPARE(qs(registry.exposition()), QString("# HELP _x9_total Underscore first.\n"
                                                "# TYPE _x9_total counter\n"
                                                "_x9_total{R0le_=\"a\"} 1\n"
                                                "# HELP h No buckets but +Inf.\n"
                                                "# TYPE h histogram\n"
                                                "h_bucket{le=\"+Inf\"} 1\n"
                                                "h_sum 1\n"
                                                "h_count 1\n"
                                                "# HELP job:lease_age:max Recording-rule style.\n"
                                                "# TYPE job:lease_age:max gauge\n"
                                                "job:lease_age:max{_le=\"1\",le=\"2\"} 1\n"));
}

void TestMetricsRegistry::concurrentIncrementsAreExact()
{
    constexpr int Threads = 8;
    constexpr int Iterations = 20000;
    Registry registry;
    Counter &held = registry.counter("held_total", "Through a held reference.");
    Gauge &gauge = registry.gauge("balance", "Up and down.");
    std::atomic<bool> done{false};

    // A scraper reads throughout; every histogram it sees must be internally consistent.
    std::thread scraper([&] {
        while (!done.load()) {
            const std::string text = registry.exposition();
            const auto inf = text.find("h_bucket{le=\"+Inf\"} ");
            const auto count = text.find("h_count ");
            if (inf != std::string::npos && count != std::string::npos) {
                const auto value = [&](std::size_t at, std::size_t skip) {
                    return std::stoull(text.substr(at + skip, text.find('\n', at) - at - skip));
                };
                if (value(inf, 20) != value(count, 8))
                    qFatal("histogram +Inf bucket and count disagree");
            }
        }
    });
    std::vector<std::thread> workers;
    for (int t = 0; t < Threads; ++t) {
        workers.emplace_back([&, t] {
            for (int i = 0; i < Iterations; ++i) {
                held.inc();
                registry.counter("looked_up_total", "Through a lookup each time.",
                                 {{"shard", std::to_string(t % 2)}})
                        .inc(2);
                gauge.add(t % 2 ? 1 : -1);
                registry.histogram("h", "H.", {}, {0.5}).observe(t % 2 ? 1 : 0.25);
            }
        });
    }
    for (std::thread &worker : workers)
        worker.join();
    done.store(true);
    scraper.join();

    QCOMPARE(held.value(), double(Threads * Iterations));
    QCOMPARE(registry.counter("looked_up_total", "Through a lookup each time.", {{"shard", "0"}})
                     .value(),
             double(Threads / 2 * Iterations * 2));
    QCOMPARE(gauge.value(), 0.0);
    const Histogram::Snapshot snapshot = registry.histogram("h", "H.", {}, {0.5}).snapshot();
    QCOMPARE(snapshot.count, std::uint64_t(Threads * Iterations));
    QCOMPARE(snapshot.cumulative.at(0), std::uint64_t(Threads / 2 * Iterations));
    QCOMPARE(snapshot.sum, Threads / 2 * Iterations * 1.25);
}

void TestMetricsRegistry::concurrentSeriesCreation()
{
    constexpr int Threads = 8;
    constexpr int PerThread = 200;
    Registry registry;
    std::vector<std::thread> workers;
    for (int t = 0; t < Threads; ++t) {
        workers.emplace_back([&registry, t] {
            for (int i = 0; i < PerThread; ++i) {
                const Labels labels{{"series", std::to_string(t * PerThread + i)}};
                registry.gauge("many", "Many.", labels).set(1);
                if (i % 2)
                    registry.removeSeries("many", labels);
            }
        });
    }
    for (std::thread &worker : workers)
        worker.join();
    const QStringList lines = qs(registry.exposition()).split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2 + Threads * PerThread / 2);
    QCOMPARE(lines.filter(QRegularExpression(R"(^many\{series="\d+"\} 1$)")).size(),
             Threads * PerThread / 2);
}

QTEST_GUILESS_MAIN(TestMetricsRegistry)
#include "tst_metricsregistry.moc"
