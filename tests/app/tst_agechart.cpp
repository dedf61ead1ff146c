// AgeChart offscreen: a day of synthetic history for five roles gives at most maxPoints points a
// series, markers where pauses and takeovers happened, and the window selector moves the time
// axis. The chart follows the palette's lightness. On a backlog history it charts the pending
// counts on an integer axis in the roles' units, and HistoryTabs shows its Backlog tab only once a
// role has a backlog source.

#include "core/holderchange.h"
#include "core/tickhistory.h"
#include "models/tones.h"
#include "ui/agechart.h"
#include "ui/historytabs.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QLegend>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QValueAxis>
#include <QtTest>

using leader::console::AgeChart;
using leader::console::HistoryTabs;
using leader::console::HistoryValue;
using leader::console::HistoryWindow;
using leader::console::RoleBacklog;
using leader::console::RoleStatus;
using leader::console::StatusSnapshot;
using leader::console::TickHistory;
using Kind = leader::console::TickHistory::Marker::Kind;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);

struct RoleSpec
{
    QString name;
    int interval; // s
    int tick;     // s
};

const QList<RoleSpec> Roles{{QStringLiteral("billing"), 60, 30},
                            {QStringLiteral("dunning"), 10, 3},
                            {QStringLiteral("email_outbox"), 2, 1},
                            {QStringLiteral("webhook_delivery"), 2, 1},
                            {QStringLiteral("webhook_outbox"), 2, 1}};

const QString Successor = QStringLiteral("host:9:99999999");

QString holderOf(qint64 n)
{
    return QStringLiteral("host:%1:0000000%1").arg(n % 3);
}

// Every 4 h the billing holder is killed 20 s into its tick and another replica takes over once
// its lease has expired.
bool isTakeover(const RoleSpec &spec, qint64 tickIndex)
{
    return spec.name == QLatin1String("billing") && tickIndex % 240 == 100;
}

// One poll at second s of a synthetic day: saw-tooth ages, a 10 min pause of dunning every 6 h
// and a billing takeover (holder killed mid-tick) every 4 h.
StatusSnapshot syntheticPoll(qint64 s)
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addSecs(s);
    for (qsizetype i = 0; i < Roles.size(); ++i) {
        const RoleSpec &spec = Roles.at(i);
        RoleStatus status;
        status.role = spec.name;
        const qint64 tickIndex = s / spec.interval;
        const qint64 phase = s % spec.interval;
        const bool paused = spec.name == QLatin1String("dunning") && s % (6 * 3600) >= 3600
                            && s % (6 * 3600) < 3600 + 600;
        if (paused) {
            status.state = leader::console::RoleState::Paused;
            status.pausedAt = Base.addSecs(s - (s % (6 * 3600)) + 3600);
            status.pausedBy = QStringLiteral("ops");
            status.pauseReason = QStringLiteral("drill");
            status.lastTickAgeSeconds = double(s % (6 * 3600) - 3600 + 7);
        } else if (phase < spec.tick) {
            const QString holder = holderOf(tickIndex + i);
            const bool takeover = isTakeover(spec, tickIndex);
            status.lastTickHolder
                    = isTakeover(spec, tickIndex - 1) ? Successor : holderOf(tickIndex - 1 + i);
            status.lastTickEndedAt = Base.addSecs((tickIndex - 1) * spec.interval + spec.tick);
            status.state = leader::console::RoleState::Led;
            status.holderId = holder;
            status.token = tickIndex * 2;
            status.acquiredAt = Base.addSecs(s - phase);
            status.expiresInSeconds = 9.0;
            // Killed at 20 s: its lease, last seen expiring 9 s after the poll at 19 s, runs out
            // at 28 s unreleased, and the successor claims the role at 29 s.
            if (takeover && phase >= 20 && phase < 29) {
                status.state = leader::console::RoleState::Free;
                status.holderId.clear();
                status.token = tickIndex * 2;
                status.acquiredAt = {};
                status.expiresInSeconds.reset();
            } else if (takeover && phase >= 29) {
                status.holderId = Successor;
                status.token = tickIndex * 2 + 1;
                status.acquiredAt = Base.addSecs(s - phase + 29);
            }
            status.lastTickAgeSeconds = double(phase + spec.interval - spec.tick);
        } else {
            status.state = leader::console::RoleState::Free;
            status.lastTickHolder
                    = isTakeover(spec, tickIndex) ? Successor : holderOf(tickIndex + i);
            status.lastTickEndedAt = Base.addSecs(tickIndex * spec.interval + spec.tick);
            status.lastTickAgeSeconds = double(phase - spec.tick);
        }
        snapshot.roles.append(status);
    }
    return snapshot;
}

// One poll at second s: each role of pending with a backlog source counting that many (a
// negative count: the role has no source), and dunning, if not among them, without one.
StatusSnapshot backlogPoll(qint64 s, const QHash<QString, qint64> &pending,
                           const QHash<QString, QString> &units = {})
{
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addSecs(s);
    QStringList roles = pending.keys();
    if (!roles.contains(QStringLiteral("dunning")))
        roles.append(QStringLiteral("dunning"));
    roles.sort();
    for (const QString &role : std::as_const(roles)) {
        RoleStatus status;
        status.role = role;
        status.state = leader::console::RoleState::Free;
        status.lastTickAgeSeconds = 1.0;
        if (pending.value(role, -1) >= 0) {
            RoleBacklog backlog;
            backlog.what = units.value(role, QStringLiteral("due items"));
            backlog.pending = pending.value(role);
            status.backlog = backlog;
        }
        snapshot.roles.append(status);
    }
    return snapshot;
}

// What the chart's value axis draws: its format applied to each of tickCount evenly spaced values.
QStringList drawnValueLabels(const AgeChart &chart)
{
    auto *view = chart.findChild<QChartView *>();
    if (!view)
        return {};
    const QList<QAbstractAxis *> axes = view->chart()->axes(Qt::Vertical);
    auto *axis = axes.size() == 1 ? qobject_cast<QValueAxis *>(axes.constFirst()) : nullptr;
    if (!axis)
        return {};
    QStringList drawn;
    const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
    for (int i = 0; i < axis->tickCount(); ++i)
        drawn << QString::asprintf(axis->labelFormat().toLatin1().constData(),
                                   axis->min() + i * step);
    return drawn;
}

} // namespace

class TstAgeChart final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void dayOfHistory_data();
    void dayOfHistory();
    void windowSelectorMovesAxis();
    void thresholdRaisesAxis();
    void ageAxisLabelsAreDistinct_data();
    void ageAxisLabelsAreDistinct();
    void emptyHistory();
    void followsPalette();
    void spikeInsideOnePixelColumnIsDrawn();
    void marksDifferByShapeNotHue();
    void thresholdLinesAreLabelled_data();
    void thresholdLinesAreLabelled();
    void backlogChartsTheCounts_data();
    void backlogChartsTheCounts();
    void backlogAxisAndTipNameTheUnits_data();
    void backlogAxisAndTipNameTheUnits();
    void backlogTabFollowsTheSources_data();
    void backlogTabFollowsTheSources();

private:
    TickHistory m_history;
};

void TstAgeChart::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    // As the window feeds it: the takeover markers are the tracker's classified changes.
    leader::console::HolderChangeTracker changes;
    for (qint64 s = 0; s <= 24 * 3600; ++s) {
        const leader::console::StatusSnapshot poll = syntheticPoll(s);
        m_history.append(poll, changes.append(poll));
    }
    QCOMPARE(m_history.roles().size(), Roles.size());
}

void TstAgeChart::dayOfHistory_data()
{
    QTest::addColumn<HistoryWindow>("window");
    QTest::addColumn<int>("maxPoints");
    QTest::addColumn<bool>("expectPauses");
    QTest::addColumn<bool>("expectTakeovers");

    QTest::newRow("5 min") << HistoryWindow::FiveMinutes << 200 << false << false;
    QTest::newRow("1 h") << HistoryWindow::OneHour << 500 << false << false;
    QTest::newRow("24 h, 1200 points") << HistoryWindow::Day << 1200 << true << true;
    QTest::newRow("24 h, 100 points") << HistoryWindow::Day << 100 << true << true;
}

void TstAgeChart::dayOfHistory()
{
    QFETCH(HistoryWindow, window);
    QFETCH(int, maxPoints);
    QFETCH(bool, expectPauses);
    QFETCH(bool, expectTakeovers);

    AgeChart chart;
    chart.resize(1000, 500);
    chart.setMaxPoints(maxPoints);
    chart.setHistory(&m_history);
    chart.setWindow(window);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.refresh();

    QCOMPARE(chart.roles().size(), Roles.size());
    for (const RoleSpec &spec : Roles) {
        const int points = chart.pointCount(spec.name);
        QVERIFY2(points > 0 && points <= maxPoints,
                 qPrintable(QStringLiteral("%1: %2").arg(spec.name).arg(points)));
    }
    // The billing stall (a 20 s hole plus a takeover) is the highest billing age of the day.
    if (window == HistoryWindow::Day)
        QVERIFY(chart.valueAxisMax() >= *m_history.maxAge(QStringLiteral("billing"), window));
    QCOMPARE(chart.markerCount(Kind::Pause) > 0, expectPauses);
    QCOMPARE(chart.markerCount(Kind::Takeover) > 0, expectTakeovers);
    if (expectPauses)
        QCOMPARE(chart.markerCount(Kind::Unpause), chart.markerCount(Kind::Pause));
    QCOMPARE(chart.rangeEnd(), m_history.latestTime());
    QCOMPARE(chart.rangeStart().msecsTo(chart.rangeEnd()),
             leader::console::historyWindowMs(window));
    QVERIFY(!chart.grab().isNull());
}

void TstAgeChart::windowSelectorMovesAxis()
{
    AgeChart chart;
    chart.setHistory(&m_history);
    QSignalSpy changed(&chart, &AgeChart::windowChanged);
    QCOMPARE(chart.window(), HistoryWindow::FiveMinutes);
    QCOMPARE(chart.rangeStart().msecsTo(chart.rangeEnd()), 5 * 60 * 1000);

    auto *box = chart.findChild<QComboBox *>();
    QVERIFY(box);
    QCOMPARE(box->count(), 3);
    box->setCurrentIndex(box->findData(int(HistoryWindow::Day)));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.first().first().value<HistoryWindow>(), HistoryWindow::Day);
    QCOMPARE(chart.window(), HistoryWindow::Day);
    QCOMPARE(chart.rangeStart().msecsTo(chart.rangeEnd()), 24 * 3600 * 1000);

    chart.setWindow(HistoryWindow::OneHour);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(box->currentData().toInt(), int(HistoryWindow::OneHour));
    QCOMPARE(chart.rangeStart().msecsTo(chart.rangeEnd()), 3600 * 1000);
    chart.setWindow(HistoryWindow::OneHour); // no change, no signal
    QCOMPARE(changed.count(), 2);
}

void TstAgeChart::thresholdRaisesAxis()
{
    AgeChart chart;
    chart.setHistory(&m_history);
    chart.refresh();
    const double curvesOnly = chart.valueAxisMax();
    double dataTop = 0;
    for (const QString &role : m_history.roles()) {
        for (const QPointF &point : m_history.series(role, chart.window(), chart.maxPoints()))
            dataTop = std::max(dataTop, point.y());
    }
    QVERIFY(dataTop > 0);
    // A threshold just above the curves is drawn and lifts the axis to show it...
    const double near = dataTop * 1.4;
    chart.setThreshold(QStringLiteral("billing"), near);
    chart.refresh();
    QVERIFY(chart.valueAxisMax() >= near);
    // ...one far above them is not, so it cannot flatten the curves.
    chart.setThreshold(QStringLiteral("billing"), curvesOnly * 10);
    chart.refresh();
    QCOMPARE(chart.valueAxisMax(), curvesOnly);
    chart.setThreshold(QStringLiteral("billing"), std::nullopt);
    chart.refresh();
    QCOMPARE(chart.valueAxisMax(), curvesOnly);
}

void TstAgeChart::ageAxisLabelsAreDistinct_data()
{
    QTest::addColumn<double>("age");
    QTest::addColumn<QStringList>("labels");
    // A two-second top once drew "0, 0, 1, 2, 2": half-second ticks with whole-second labels.
    QTest::newRow("idle: 1 s is the lowest top")
            << 0.0 << QStringList{"0.0", "0.5", "1.0", "1.5", "2.0"};
    QTest::newRow("under 2 s") << 1.5 << QStringList{"0.0", "0.5", "1.0", "1.5", "2.0"};
    QTest::newRow("under 5 s") << 3.0 << QStringList{"0", "1", "2", "3", "4", "5"};
    QTest::newRow("under 10 s") << 9.0 << QStringList{"0", "2", "4", "6", "8", "10"};
    QTest::newRow("under 20 s") << 12.0 << QStringList{"0", "5", "10", "15", "20"};
    QTest::newRow("a stall") << 4000.0 << QStringList{"0", "1000", "2000", "3000", "4000", "5000"};
}

void TstAgeChart::ageAxisLabelsAreDistinct()
{
    QFETCH(double, age);
    QFETCH(QStringList, labels);
    TickHistory history;
    for (int s = 0; s < 3; ++s) {
        StatusSnapshot snapshot;
        snapshot.databaseTime = Base.addSecs(s);
        RoleStatus status;
        status.role = QStringLiteral("billing");
        status.state = leader::console::RoleState::Free;
        status.lastTickAgeSeconds = age;
        snapshot.roles.append(status);
        history.append(snapshot);
    }
    AgeChart chart;
    chart.setHistory(&history);
    chart.refresh();
    auto *view = chart.findChild<QChartView *>();
    QVERIFY(view);
    const QList<QAbstractAxis *> axes = view->chart()->axes(Qt::Vertical);
    QCOMPARE(axes.size(), 1);
    auto *axis = qobject_cast<QValueAxis *>(axes.constFirst());
    QVERIFY(axis);
    // What QValueAxis draws: the format applied to each of tickCount evenly spaced values.
    QStringList drawn;
    const double step = (axis->max() - axis->min()) / (axis->tickCount() - 1);
    for (int i = 0; i < axis->tickCount(); ++i)
        drawn << QString::asprintf(axis->labelFormat().toLatin1().constData(),
                                   axis->min() + i * step);
    QCOMPARE(drawn, labels);
}

void TstAgeChart::emptyHistory()
{
    TickHistory empty;
    AgeChart chart;
    chart.setHistory(&empty);
    QVERIFY(chart.roles().isEmpty());
    QCOMPARE(chart.markerCount(Kind::Takeover), 0);
    chart.setHistory(nullptr);
    chart.refresh();
}

void TstAgeChart::followsPalette()
{
    AgeChart chart;
    auto *view = chart.findChild<QChartView *>();
    QVERIFY(view);
    QPalette dark = chart.palette();
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
    chart.setPalette(dark);
    QCOMPARE(view->chart()->theme(), QChart::ChartThemeDark);
    QPalette light = chart.palette();
    light.setColor(QPalette::Window, QColor(0xf0, 0xf0, 0xf0));
    chart.setPalette(light);
    QCOMPARE(view->chart()->theme(), QChart::ChartThemeLight);
}

// The chart draws each pixel column's extent, not every segment: a one-sample spike among
// neighbours in the same column must still be drawn to its top. (Checked once: with each column
// keeping the last segment crossing it instead of the extremes of all of them, this test fails.)
void TstAgeChart::spikeInsideOnePixelColumnIsDrawn()
{
    constexpr int Samples = 1200; // 5 min of polls 250 ms apart: several in every pixel column
    constexpr int StepMs = 250;
    constexpr int SpikeAt = 600;
    constexpr double Spike = 40.0;
    TickHistory history;
    for (int s = 0; s < Samples; ++s) {
        StatusSnapshot snapshot;
        snapshot.databaseTime = Base.addMSecs(qint64(s) * StepMs);
        RoleStatus status;
        status.role = QStringLiteral("billing");
        status.state = leader::console::RoleState::Free;
        // A zigzag between 1 and 3 s, as a day of min/max buckets draws, and one spike in it.
        status.lastTickAgeSeconds = s == SpikeAt ? Spike : 1.0 + 2.0 * (s % 2);
        snapshot.roles.append(status);
        history.append(snapshot);
    }
    AgeChart chart;
    chart.setMaxPoints(10 * Samples); // every sample reaches the chart: only its columns decimate
    chart.resize(240, 300);
    chart.setHistory(&history);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.refresh();
    QCOMPARE(chart.pointCount(QStringLiteral("billing")), Samples);
    QVERIFY2(chart.plotArea().width() * 4 < Samples,
             qPrintable(QStringLiteral("plot %1 px wide: too few samples per column")
                                .arg(chart.plotArea().width())));

    const QImage image = chart.grab().toImage();
    const QDateTime spikeTime = Base.addMSecs(qint64(SpikeAt) * StepMs);
    const QPointF top = chart.pixelFor(spikeTime, Spike);
    const QPointF nearTop = chart.pixelFor(spikeTime, Spike * 0.9);
    const QColor billing = leader::console::roleColor(0, chart.palette()); // the first role's
    const auto isBilling = [&](const QColor &c) {
        return std::abs(c.red() - billing.red()) + std::abs(c.green() - billing.green())
                       + std::abs(c.blue() - billing.blue())
               < 60;
    };
    bool drawn = false;
    for (int x = int(top.x()) - 1; x <= int(top.x()) + 1 && !drawn; ++x) {
        for (int y = int(top.y()) - 1; y <= int(nearTop.y()) && !drawn; ++y)
            drawn = isBilling(image.pixelColor(x, y));
    }
    QVERIFY2(drawn, qPrintable(QStringLiteral("no billing pixel at x %1 between y %2 and %3")
                                       .arg(top.x())
                                       .arg(top.y())
                                       .arg(nearTop.y())));
    // The rest of the line stays under 3 s: nothing is drawn that high a few columns away.
    const QPointF aside = chart.pixelFor(spikeTime.addSecs(-30), Spike);
    for (int y = int(aside.y()) - 1; y <= int(nearTop.y()); ++y)
        QVERIFY(!isBilling(image.pixelColor(int(aside.x()), y)));
}

// Pause, unpause and takeover marks are told apart by shape, in the legend too, and carry no hue a
// role's line could have. (Checked once: with the legend's default square markers and the marks
// in the warning, good and alert tones, this fails.)
void TstAgeChart::marksDifferByShapeNotHue()
{
    AgeChart chart;
    auto *view = chart.findChild<QChartView *>();
    QVERIFY(view);
    QCOMPARE(view->chart()->legend()->markerShape(), QLegend::MarkerShapeFromSeries);
    QSet<int> shapes;
    int marks = 0;
    for (QAbstractSeries *series : view->chart()->series()) {
        auto *scatter = qobject_cast<QScatterSeries *>(series);
        if (!scatter)
            continue;
        ++marks;
        shapes.insert(int(scatter->markerShape()));
        QCOMPARE(scatter->color().hslSaturation(), 0);
        QCOMPARE(scatter->pen().color().hslSaturation(), 0);
    }
    QCOMPARE(marks, 3);
    QCOMPARE(shapes.size(), 3);
}

void TstAgeChart::thresholdLinesAreLabelled_data()
{
    QTest::addColumn<double>("billing");
    QTest::addColumn<double>("dunning"); // 0: none
    QTest::addColumn<QStringList>("labels");
    QTest::newRow("near the curves") << 12.0 << 0.0 << QStringList{"billing alert 12 s"};
    QTest::newRow("a fraction") << 12.5 << 0.0 << QStringList{"billing alert 12.5 s"};
    QTest::newRow("two roles, one value: one label")
            << 12.0 << 12.0 << QStringList{"billing, dunning alert 12 s"};
    QTest::newRow("lowest first") << 14.0 << 12.0
                                  << QStringList{"dunning alert 12 s", "billing alert 14 s"};
    QTest::newRow("far above: neither line nor label") << 100.0 << 0.0 << QStringList{};
}

// The alert lines say whose and at what age. (Checked once: without the labels, this fails.)
void TstAgeChart::thresholdLinesAreLabelled()
{
    QFETCH(double, billing);
    QFETCH(double, dunning);
    QFETCH(QStringList, labels);
    TickHistory history;
    for (int s = 0; s < 3; ++s) {
        StatusSnapshot snapshot;
        snapshot.databaseTime = Base.addSecs(s);
        for (const char *role : {"billing", "dunning"}) {
            RoleStatus status;
            status.role = QString::fromLatin1(role);
            status.state = leader::console::RoleState::Free;
            status.lastTickAgeSeconds = 10.0;
            snapshot.roles.append(status);
        }
        history.append(snapshot);
    }
    AgeChart chart;
    chart.setHistory(&history);
    chart.setThreshold(QStringLiteral("billing"), billing);
    if (dunning > 0)
        chart.setThreshold(QStringLiteral("dunning"), dunning);
    chart.refresh();
    QCOMPARE(chart.thresholdLabels(), labels);
    chart.setThreshold(QStringLiteral("billing"), std::nullopt);
    chart.setThreshold(QStringLiteral("dunning"), std::nullopt);
    chart.refresh();
    QVERIFY(chart.thresholdLabels().isEmpty());
}

void TstAgeChart::backlogChartsTheCounts_data()
{
    QTest::addColumn<qint64>("billingPeak"); // billing counts up to it and back; -1: no source
    QTest::addColumn<qint64>("outboxPeak");
    QTest::addColumn<QStringList>("labels"); // the value axis'

    QTest::newRow("idle: 5 is the lowest top")
            << qint64(0) << qint64(0) << QStringList{"0", "1", "2", "3", "4", "5"};
    QTest::newRow("a few") << qint64(3) << qint64(1) << QStringList{"0", "1", "2", "3", "4", "5"};
    QTest::newRow("under 10") << qint64(9) << qint64(2)
                              << QStringList{"0", "2", "4", "6", "8", "10"};
    QTest::newRow("under 20") << qint64(12) << qint64(2) << QStringList{"0", "5", "10", "15", "20"};
    QTest::newRow("a paused role's climb")
            << qint64(730) << qint64(4) << QStringList{"0", "200", "400", "600", "800", "1000"};
    QTest::newRow("the outbox alone")
            << qint64(-1) << qint64(47) << QStringList{"0", "10", "20", "30", "40", "50"};
}

// Each role with a source is a line of one point a poll, the axis top follows the largest count
// and every label is a whole number; dunning, without a source, is no line.
void TstAgeChart::backlogChartsTheCounts()
{
    QFETCH(qint64, billingPeak);
    QFETCH(qint64, outboxPeak);
    QFETCH(QStringList, labels);

    constexpr int Polls = 21;
    const QString billing = QStringLiteral("billing");
    const QString outbox = QStringLiteral("email_outbox");
    TickHistory history(HistoryValue::BacklogPending);
    for (int s = 0; s < Polls; ++s) {
        // Up to the peak at the middle poll and down again.
        const auto ramp = [&](qint64 peak) {
            return peak < 0 ? peak : peak - peak * std::abs(s - Polls / 2) / (Polls / 2);
        };
        history.append(backlogPoll(s, {{billing, ramp(billingPeak)}, {outbox, ramp(outboxPeak)}}));
    }
    AgeChart chart;
    chart.setHistory(&history);
    chart.refresh();

    QStringList expectedRoles{billing, outbox};
    if (billingPeak < 0)
        expectedRoles.removeOne(billing);
    QCOMPARE(chart.roles(), expectedRoles);
    for (const QString &role : std::as_const(expectedRoles))
        QCOMPARE(chart.pointCount(role), Polls);
    QCOMPARE(chart.pointCount(QStringLiteral("dunning")), 0);
    QCOMPARE(chart.valueAxisMax(), labels.constLast().toDouble());
    QCOMPARE(drawnValueLabels(chart), labels);
    QVERIFY(chart.thresholdLabels().isEmpty());

    // An age threshold does not reach a count's axis.
    chart.setThreshold(billing, 1.0);
    chart.refresh();
    QVERIFY(chart.thresholdLabels().isEmpty());
    QCOMPARE(drawnValueLabels(chart), labels);
}

void TstAgeChart::backlogAxisAndTipNameTheUnits_data()
{
    QTest::addColumn<QStringList>("units"); // billing's, dunning's, ... in role order
    QTest::addColumn<QString>("title");

    const QStringList demo{"due subscriptions", "due runs", "pending outbox rows", "due deliveries",
                           "undispatched events"};
    QTest::newRow("one role") << demo.mid(0, 1) << QStringLiteral("pending (due subscriptions)");
    QTest::newRow("two fit") << demo.mid(0, 2)
                             << QStringLiteral("pending (due subscriptions, due runs)");
    QTest::newRow("the demo's five: the rest in the tooltips")
            << demo << QStringLiteral("pending (due subscriptions, due runs, …)");
    QTest::newRow("one unit for all") << QStringList{"due items", "due items", "due items"}
                                      << QStringLiteral("pending (due items)");
}

void TstAgeChart::backlogAxisAndTipNameTheUnits()
{
    QFETCH(QStringList, units);
    QFETCH(QString, title);

    const QStringList roles{"billing", "dunning", "email_outbox", "webhook_delivery",
                            "webhook_outbox"};
    QHash<QString, qint64> pending;
    QHash<QString, QString> unitOf;
    for (qsizetype i = 0; i < units.size(); ++i) {
        pending.insert(roles.at(i), 42 + i);
        unitOf.insert(roles.at(i), units.at(i));
    }
    TickHistory history(HistoryValue::BacklogPending);
    AgeChart chart;
    chart.setHistory(&history);
    QCOMPARE(chart.valueAxisTitle(), QStringLiteral("pending"));
    history.append(backlogPoll(1, pending, unitOf));
    history.append(backlogPoll(2, pending, unitOf));
    chart.refresh();
    QCOMPARE(chart.valueAxisTitle(), title);
    const QDateTime at = Base.addSecs(2);
    const QString clock
            = leader::console::TimeRule::clock(at, leader::console::TimeZoneMode::Local);
    for (qsizetype i = 0; i < units.size(); ++i)
        QCOMPARE(chart.curveTip(roles.at(i), at, 42.4 + double(i)),
                 QStringLiteral("%1: %2 %3 at %4")
                         .arg(roles.at(i))
                         .arg(42 + i)
                         .arg(units.at(i), clock));

    // The same chart on an age history is the age chart again.
    TickHistory ages;
    ages.append(backlogPoll(1, pending, unitOf));
    chart.setHistory(&ages);
    QCOMPARE(chart.valueAxisTitle(), QStringLiteral("last tick age (s)"));
    QCOMPARE(chart.curveTip(QStringLiteral("billing"), at, 4.0),
             QStringLiteral("billing: 4.0 s at %1").arg(clock));
}

void TstAgeChart::backlogTabFollowsTheSources_data()
{
    // Each poll's billing backlog: a count, or -1 for no source; "error": a poll whose backlog
    // read failed (StatusSnapshot::backlogError, every row without one); "clear": another database.
    QTest::addColumn<QStringList>("polls");
    QTest::addColumn<QList<bool>>("tabAfterEach");

    QTest::newRow("no source: no tab")
            << QStringList{"-1", "-1", "-1"} << QList<bool>{false, false, false};
    QTest::newRow("a source from the first poll")
            << QStringList{"3", "4"} << QList<bool>{true, true};
    QTest::newRow("registered later")
            << QStringList{"-1", "-1", "0", "2"} << QList<bool>{false, false, true, true};
    QTest::newRow("a failed read keeps the tab")
            << QStringList{"5", "error", "6"} << QList<bool>{true, true, true};
    QTest::newRow("another database without a source")
            << QStringList{"5", "clear", "-1", "-1"} << QList<bool>{true, false, false, false};
}

// The Backlog tab is beside "Last tick age" while some role has had a source, and gone otherwise;
// shown, it draws the counts, and it shares the age chart's window.
void TstAgeChart::backlogTabFollowsTheSources()
{
    QFETCH(QStringList, polls);
    QFETCH(QList<bool>, tabAfterEach);

    HistoryTabs tabs(nullptr);
    tabs.resize(900, 500);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    auto *ageChart = tabs.findChild<AgeChart *>(QStringLiteral("ageChart"));
    auto *backlogChart = tabs.findChild<AgeChart *>(QStringLiteral("backlogChart"));
    QVERIFY(ageChart && backlogChart);
    QWidget *backlogPage = backlogChart->parentWidget();
    // The drill report takes the first AgeChart it finds for the age history. (Checked once: with
    // the backlog chart a page of the tabs itself, this fails.)
    QCOMPARE(tabs.findChild<AgeChart *>(), ageChart);
    const int tabsWithout = tabs.count();

    qint64 s = 0;
    for (qsizetype i = 0; i < polls.size(); ++i) {
        const QString &poll = polls.at(i);
        if (poll == QLatin1String("clear")) {
            tabs.clear();
        } else {
            StatusSnapshot snapshot
                    = backlogPoll(++s, {{QStringLiteral("billing"),
                                         poll == QLatin1String("error") ? -1 : poll.toLongLong()}});
            if (poll == QLatin1String("error"))
                snapshot.backlogError
                        = QStringLiteral("canceling statement due to statement timeout");
            tabs.append(snapshot, {});
        }
        const bool tab = tabAfterEach.at(i);
        QVERIFY2(tabs.hasBacklogTab() == tab, qPrintable(QStringLiteral("after poll %1").arg(i)));
        QCOMPARE(tabs.count(), tabsWithout + (tab ? 1 : 0));
        QCOMPARE(tabs.indexOf(backlogPage), tab ? tabs.indexOf(ageChart) + 1 : -1);
        if (tab)
            QCOMPARE(tabs.tabText(tabs.indexOf(backlogPage)), QStringLiteral("Backlog"));
        QCOMPARE(tabs.findChild<AgeChart *>(), ageChart);
    }
    if (!tabs.hasBacklogTab())
        return;

    // Hidden until now, the chart is drawn when its tab is chosen, not at the next poll.
    QCOMPARE(backlogChart->pointCount(QStringLiteral("billing")), 0);
    tabs.setCurrentWidget(backlogPage);
    QVERIFY(backlogChart->isVisible());
    QVERIFY(backlogChart->pointCount(QStringLiteral("billing")) > 0);
    QCOMPARE(backlogChart->roles(), QStringList{QStringLiteral("billing")});
    ageChart->setWindow(HistoryWindow::Day);
    QCOMPARE(backlogChart->window(), HistoryWindow::Day);
    backlogChart->setWindow(HistoryWindow::OneHour);
    QCOMPARE(ageChart->window(), HistoryWindow::OneHour);
    tabs.setCurrentWidget(ageChart);
    tabs.setCurrentWidget(backlogPage);
    QCOMPARE(tabs.findChild<AgeChart *>(), ageChart);
}

QTEST_MAIN(TstAgeChart)

#include "tst_agechart.moc"
