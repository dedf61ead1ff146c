// AgeChart offscreen: a day of synthetic history for five roles gives at most maxPoints points a
// series, markers where pauses and takeovers happened, and the window selector moves the time
// axis. The chart follows the palette's lightness.

#include "core/holderchange.h"
#include "core/tickhistory.h"
#include "models/tones.h"
#include "ui/agechart.h"

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
using leader::console::HistoryWindow;
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

QTEST_MAIN(TstAgeChart)

#include "tst_agechart.moc"
