// HolderTimeline: spans of one holder and token per role, extended by each poll that sees the same
// token, closed where the holder stopped, with the gap to the next span and whether it was a
// takeover. Every test runs the model under QAbstractItemModelTester. HolderTimelineView is
// painted offscreen and asked for its tooltips.

#include "models/holdertimeline.h"
#include "models/tones.h"
#include "ui/holdertimelineview.h"

#include <QAbstractItemModelTester>
#include <QGuiApplication>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using leader::console::HistoryWindow;
using leader::console::HolderChangeTracker;
using leader::console::HolderTimeline;
using leader::console::HolderTimelineView;
using leader::console::RoleStatus;
using leader::console::StatusSnapshot;

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
const QString A = QStringLiteral("host:1:aaaaaaaa");
const QString B = QStringLiteral("host:2:bbbbbbbb");

// One poll step of one role: who holds it (empty: nobody), with which token since when, and the
// last completed tick.
struct Step
{
    double at = 0;
    QString holder;
    qint64 token = 0;
    double acquiredAt = 0;
    double expiresIn = 9.0;
    QString lastTickHolder;
    double lastTickEndedAt = -1;
    double pausedAt = -1; // nobody holds it: paused since then
};

StatusSnapshot snapshotOf(const QString &role, const Step &step)
{
    RoleStatus s;
    s.role = role;
    s.state = !step.holder.isEmpty() ? leader::console::RoleState::Led
              : step.pausedAt >= 0   ? leader::console::RoleState::Paused
                                     : leader::console::RoleState::Free;
    if (step.pausedAt >= 0)
        s.pausedAt = Base.addMSecs(qint64(step.pausedAt * 1000));
    s.holderId = step.holder;
    s.token = step.token;
    if (!step.holder.isEmpty()) {
        s.acquiredAt = Base.addMSecs(qint64(step.acquiredAt * 1000));
        s.expiresInSeconds = step.expiresIn;
    }
    s.lastTickHolder = step.lastTickHolder;
    if (step.lastTickEndedAt >= 0)
        s.lastTickEndedAt = Base.addMSecs(qint64(step.lastTickEndedAt * 1000));
    StatusSnapshot snapshot;
    snapshot.databaseTime = Base.addMSecs(qint64(step.at * 1000));
    snapshot.roles = {s};
    return snapshot;
}

// What one span should look like: holder, from, to (seconds after Base), open, gap (-1: none),
// failover.
struct ExpectedSpan
{
    QString holder;
    double from = 0;
    double to = 0;
    bool open = false;
    double gap = -1;
    bool failover = false;
};

// The window's arrangement: one tracker classifies each poll, the timeline draws what it found.
struct Timeline
{
    HolderTimeline model;
    HolderChangeTracker changes;
    void append(const StatusSnapshot &snapshot)
    {
        model.append(snapshot, changes.append(snapshot));
    }
};

} // namespace

Q_DECLARE_METATYPE(Step)
Q_DECLARE_METATYPE(ExpectedSpan)

class TstHolderTimeline final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void spans_data();
    void spans();
    void extensionChangesOnlyToAndDuration();
    void columnsAndHeaders();
    void pruneAfterADay();
    void windowQuery();
    void viewPaintsAndExplains();
    void namesShownWhenKnown();
    void holderColorsAreStable();
};

void TstHolderTimeline::spans_data()
{
    QTest::addColumn<QList<Step>>("steps");
    QTest::addColumn<QList<ExpectedSpan>>("expected");

    QTest::newRow("one poll opens a span at acquired_at")
            << QList<Step>{{1.0, A, 7, 0.5}} << QList<ExpectedSpan>{{A, 0.5, 1.0, true}};
    QTest::newRow("same token extends")
            << QList<Step>{{1.0, A, 7, 0.5}, {2.0, A, 7, 0.5}, {3.0, A, 7, 0.5}}
            << QList<ExpectedSpan>{{A, 0.5, 3.0, true}};
    // A finished its tick at 3.5 s: the span ends there, not at the last poll (3 s).
    QTest::newRow("clean end closes at the tick's end")
            << QList<Step>{{1.0, A, 7, 0.5}, {3.0, A, 7, 0.5}, {4.0, {}, 0, 0, 0, A, 3.5}}
            << QList<ExpectedSpan>{{A, 0.5, 3.5, false}};
    QTest::newRow("same holder, next token: a new span, not a takeover")
            << QList<Step>{{1.0, A, 7, 0.5},
                           {2.0, {}, 0, 0, 0, A, 1.5},
                           {3.0, A, 8, 2.5, 9.0, A, 1.5}}
            << QList<ExpectedSpan>{{A, 0.5, 1.5, false}, {A, 2.5, 3.0, true, 1.0, false}};
    // A last seen at 4 s with 8 s left: its last heartbeat was at 2 s, its lease ran out at 12 s.
    // B acquired at 12.3 s.
    QTest::newRow("failover after a death: gap from the last heartbeat")
            << QList<Step>{{1.0, A, 7, 0.5}, {4.0, A, 7, 0.5, 8.0}, {12.5, B, 8, 12.3}}
            << QList<ExpectedSpan>{{A, 0.5, 2.0, false}, {B, 12.3, 12.5, true, 10.3, true}};
    QTest::newRow("failover seen through a free poll")
            << QList<Step>{{1.0, A, 7, 0.5}, {4.0, A, 7, 0.5, 8.0}, {8.0, {}}, {13.0, B, 8, 12.5}}
            << QList<ExpectedSpan>{{A, 0.5, 2.0, false}, {B, 12.5, 13.0, true, 10.5, true}};
    // A released its tick: a handover, not a failover.
    QTest::newRow("clean handover to another holder")
            << QList<Step>{{1.0, A, 7, 0.5}, {2.0, B, 8, 1.75, 9.0, A, 1.25}}
            << QList<ExpectedSpan>{{A, 0.5, 1.25, false}, {B, 1.75, 2.0, true, 0.5, false}};
    // The pause took the lease at its paused_at; B acquired after the unpause.
    QTest::newRow("pause ends a span at paused_at")
            << QList<Step>{{1.0, A, 7, 0.5}, {3.0, {}, 0, 0, 0, {}, -1, 2.5}, {9.0, B, 8, 8.5}}
            << QList<ExpectedSpan>{{A, 0.5, 2.5, false}, {B, 8.5, 9.0, true, 6.0, false}};
}

void TstHolderTimeline::spans()
{
    QFETCH(QList<Step>, steps);
    QFETCH(QList<ExpectedSpan>, expected);

    Timeline timeline;
    HolderTimeline &model = timeline.model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy updated(&model, &HolderTimeline::updated);
    for (const Step &step : std::as_const(steps))
        timeline.append(snapshotOf(QStringLiteral("billing"), step));
    QVERIFY(updated.count() > 0);

    const QList<HolderTimeline::Span> spans = model.spansFor(QStringLiteral("billing"));
    QCOMPARE(spans.size(), expected.size());
    QCOMPARE(model.rowCount(), int(expected.size()));
    for (qsizetype i = 0; i < spans.size(); ++i) {
        const HolderTimeline::Span &span = spans.at(i);
        const ExpectedSpan &want = expected.at(i);
        QCOMPARE(span.holderId, want.holder);
        QCOMPARE(span.from, Base.addMSecs(qint64(want.from * 1000)));
        QCOMPARE(span.to, Base.addMSecs(qint64(want.to * 1000)));
        QCOMPARE(span.open, want.open);
        QCOMPARE(span.failover, want.failover);
        if (want.gap < 0) {
            QVERIFY(!span.gapBeforeSeconds);
        } else {
            QVERIFY(span.gapBeforeSeconds);
            QCOMPARE(*span.gapBeforeSeconds, want.gap);
            const QModelIndex gapIndex = model.index(int(i), HolderTimeline::GapBeforeColumn);
            QCOMPARE(gapIndex.data(Qt::UserRole).toDouble(), want.gap);
            QCOMPARE(gapIndex.data().toString(), HolderTimeline::formatSeconds(want.gap));
        }
        QCOMPARE(model.index(int(i), 0).data(HolderTimeline::FailoverRole).toBool(), want.failover);
    }
}

void TstHolderTimeline::extensionChangesOnlyToAndDuration()
{
    Timeline timeline;
    HolderTimeline &model = timeline.model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    timeline.append(snapshotOf(QStringLiteral("billing"), {1.0, A, 7, 0.5}));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    timeline.append(snapshotOf(QStringLiteral("billing"), {2.0, A, 7, 0.5}));
    QCOMPARE(inserted.count(), 0);
    QCOMPARE(changed.count(), 1);
    const auto topLeft = changed.first().at(0).value<QModelIndex>();
    const auto bottomRight = changed.first().at(1).value<QModelIndex>();
    QCOMPARE(topLeft, model.index(0, HolderTimeline::ToColumn));
    QCOMPARE(bottomRight, model.index(0, HolderTimeline::DurationColumn));
    QCOMPARE(model.index(0, HolderTimeline::DurationColumn).data(Qt::UserRole).toDouble(), 1.5);
}

void TstHolderTimeline::columnsAndHeaders()
{
    Timeline timeline;
    HolderTimeline &model = timeline.model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), int(HolderTimeline::ColumnCount));
    for (int column = 0; column < HolderTimeline::ColumnCount; ++column)
        QVERIFY(!model.headerData(column, Qt::Horizontal).toString().isEmpty());
    timeline.append(snapshotOf(QStringLiteral("dunning"), {1.0, A, 42, 0.5}));
    QCOMPARE(model.index(0, HolderTimeline::RoleColumn).data().toString(),
             QStringLiteral("dunning"));
    QCOMPARE(model.index(0, HolderTimeline::HolderColumn).data().toString(), A);
    QCOMPARE(model.index(0, HolderTimeline::TokenColumn).data().toLongLong(), 42);
    QCOMPARE(model.index(0, HolderTimeline::FromColumn).data(Qt::UserRole).toDateTime(),
             Base.addMSecs(500));
    QVERIFY(model.index(0, HolderTimeline::ToColumn).data(HolderTimeline::OpenRole).toBool());
    QVERIFY(model.index(0, HolderTimeline::HolderColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(A));
}

void TstHolderTimeline::pruneAfterADay()
{
    Timeline timeline;
    HolderTimeline &model = timeline.model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // One 30 s tick every 2 min for 26 h, alternating holders, polled once in and once after
    // each tick (the tester checks the whole model on every change, so few polls keep it quick).
    constexpr int Ticks = 26 * 30;
    for (int tick = 0; tick < Ticks; ++tick) {
        const double start = tick * 120.0;
        const QString holder = tick % 2 ? A : B;
        timeline.append(
                snapshotOf(QStringLiteral("billing"), {start + 10, holder, tick + 1, start + 0.5}));
        timeline.append(snapshotOf(QStringLiteral("billing"),
                                   {start + 40, {}, 0, 0, 0, holder, start + 30.0}));
    }
    const QDateTime cutoff = model.latestTime().addMSecs(-HolderTimeline::RetentionMs);
    QVERIFY(model.rowCount() > 0);
    QVERIFY(model.rowCount() <= 24 * 30 + 1);
    QVERIFY(model.rowCount() >= 24 * 30 - 1);
    QVERIFY(model.span(0).to >= cutoff);
    QCOMPARE(model.spansFor(QStringLiteral("billing")).size(), model.rowCount());
    // Each tick completed, but polls 90 s apart cannot prove that no other tick ran and expired
    // between two: the change is unknown, and never a failover.
    const HolderTimeline::Span &last = model.span(model.rowCount() - 1);
    QVERIFY(!last.failover);
    QCOMPARE(last.change, leader::console::HolderChangeKind::Unknown);
    QCOMPARE(model.index(model.rowCount() - 1, 0).data(HolderTimeline::ChangeRole).toString(),
             QStringLiteral("unknown"));
}

void TstHolderTimeline::windowQuery()
{
    Timeline timeline;
    HolderTimeline &model = timeline.model;
    for (int i = 0; i < 10; ++i) {
        const double start = i * 10.0;
        timeline.append(snapshotOf(QStringLiteral("billing"), {start + 1, A, i + 1, start}));
        timeline.append(
                snapshotOf(QStringLiteral("billing"), {start + 6, {}, 0, 0, 0, A, start + 5.0}));
    }
    const QList<HolderTimeline::Span> spans
            = model.spansFor(QStringLiteral("billing"), Base.addSecs(32), Base.addSecs(61));
    QCOMPARE(spans.size(), 4); // the ticks starting at 30, 40, 50 and 60 s
    QCOMPARE(spans.first().token, 4);
    QCOMPARE(spans.last().token, 7);
    QVERIFY(model.spansFor(QStringLiteral("nobody"), Base, Base.addSecs(100)).isEmpty());
}

void TstHolderTimeline::viewPaintsAndExplains()
{
    Timeline timeline;
    HolderTimeline &model = timeline.model;
    // A takeover with a 10.3 s gap on billing; dunning led throughout.
    timeline.append(snapshotOf(QStringLiteral("billing"), {1.0, A, 7, 0.5}));
    timeline.append(snapshotOf(QStringLiteral("billing"), {4.0, A, 7, 0.5, 8.0}));
    timeline.append(snapshotOf(QStringLiteral("billing"), {12.5, B, 8, 12.3}));
    StatusSnapshot both = snapshotOf(QStringLiteral("billing"), {60.0, B, 8, 12.3});
    both.roles.append(snapshotOf(QStringLiteral("dunning"), {60.0, A, 3, 0.0}).roles.first());
    timeline.append(both);

    HolderTimelineView view;
    view.setModel(&model);
    view.setWindow(HistoryWindow::FiveMinutes);
    view.resize(900, view.sizeHint().height());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage image = view.grab().toImage();
    QVERIFY(!image.isNull());

    // The span of B on billing lies in the rightmost part of the window, in lane 0.
    const int laneY = view.fontMetrics().height() / 2 + 6;
    QString tip;
    for (int x = view.width() - 12; x > view.width() / 2 && tip.isEmpty(); x -= 2)
        tip = view.toolTipAt(QPoint(x, laneY));
    QVERIFY2(tip.contains(B), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("token 8")));
    // The gap before it says it was a takeover, and from which heartbeat.
    QString gapTip;
    for (int x = 0; x < view.width() && !gapTip.contains(QLatin1String("no holder")); ++x)
        gapTip = view.toolTipAt(QPoint(x, laneY));
    QVERIFY2(gapTip.contains(QStringLiteral("Takeover from %1").arg(A)), qPrintable(gapTip));
    QVERIFY(gapTip.contains(QStringLiteral("10.3 s")));
    // The takeover's label is a frame on Base, not a fill a holder's colour could match: the
    // alert fill it had before is nowhere in the gap (checked once: fails with that fill).
    const QPalette palette = view.palette();
    int highlightPixels = 0;
    for (int x = 0; x < view.width(); ++x) {
        if (!view.toolTipAt(QPoint(x, laneY)).contains(QLatin1String("no holder")))
            continue;
        const QColor pixel = image.pixelColor(x, laneY);
        QVERIFY(pixel != leader::console::toneFill(leader::console::Tone::Alert, palette));
        if (pixel == leader::console::highlightFill(palette))
            ++highlightPixels;
    }
    QVERIFY(highlightPixels > 0);

    view.setWindow(HistoryWindow::Day);
    QCOMPARE(view.window(), HistoryWindow::Day);
    QVERIFY(!view.grab().isNull());
}

// The demo's holders by replica name, the full id beside it in the tooltips; ids never named as
// they are. Names are announced for the rows that show the holder, as holder or as the previous
// one. Mutation check (done once): holderName() returning the id failed the display check.
void TstHolderTimeline::namesShownWhenKnown()
{
    Timeline timeline;
    HolderTimeline &model = timeline.model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // dunning led by B (row 0); billing: A, then B took over after a 10.3 s gap (rows 1, 2).
    timeline.append(snapshotOf(QStringLiteral("dunning"), {0.5, B, 3, 0.0}));
    timeline.append(snapshotOf(QStringLiteral("billing"), {1.0, A, 7, 0.5}));
    timeline.append(snapshotOf(QStringLiteral("billing"), {4.0, A, 7, 0.5, 8.0}));
    timeline.append(snapshotOf(QStringLiteral("billing"), {12.5, B, 8, 12.3}));
    StatusSnapshot both = snapshotOf(QStringLiteral("billing"), {60.0, B, 8, 12.3});
    both.roles.append(snapshotOf(QStringLiteral("dunning"), {60.0, B, 3, 0.0}).roles.first());
    timeline.append(both);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(1, HolderTimeline::HolderColumn).data().toString(), A);

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy updated(&model, &HolderTimeline::updated);
    model.addHolderNames({{A, QStringLiteral("r1")}});
    // Rows 1 (A's span) and 2 (taken over from A); not row 0.
    QVERIFY(!changed.isEmpty());
    for (const QList<QVariant> &signal : std::as_const(changed)) {
        QCOMPARE(signal.at(0).toModelIndex().row(), 1);
        QCOMPARE(signal.at(1).toModelIndex().row(), 2);
    }
    QCOMPARE(updated.count(), 1);
    const QModelIndex holder = model.index(1, HolderTimeline::HolderColumn);
    QCOMPARE(holder.data().toString(), QStringLiteral("r1"));
    QCOMPARE(holder.data(Qt::UserRole).toString(), A);
    QVERIFY2(holder.data(Qt::ToolTipRole).toString().contains(QStringLiteral("r1 (%1)").arg(A)),
             qPrintable(holder.data(Qt::ToolTipRole).toString()));
    QCOMPARE(model.index(2, HolderTimeline::HolderColumn).data().toString(), B);
    const QString takeover
            = model.index(2, HolderTimeline::RoleColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(takeover.contains(QStringLiteral("Takeover from r1 (%1)").arg(A)),
             qPrintable(takeover));

    // Known already: nothing to announce. Names add up: A keeps its name when B's arrives.
    changed.clear();
    model.addHolderNames({{A, QStringLiteral("r1")}});
    QCOMPARE(changed.count(), 0);
    model.addHolderNames({{B, QStringLiteral("r2")}});
    QCOMPARE(model.index(0, HolderTimeline::HolderColumn).data().toString(), QStringLiteral("r2"));
    QCOMPARE(model.index(1, HolderTimeline::HolderColumn).data().toString(), QStringLiteral("r1"));

    // The view's tooltips say the names too.
    HolderTimelineView view;
    view.setModel(&model);
    view.setWindow(HistoryWindow::FiveMinutes);
    view.resize(900, view.sizeHint().height());
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!view.grab().isNull());
    const int laneY = view.fontMetrics().height() / 2 + 6 + view.fontMetrics().height() + 12;
    QString tip;
    for (int x = view.width() - 12; x > view.width() / 2 && tip.isEmpty(); x -= 2)
        tip = view.toolTipAt(QPoint(x, laneY));
    QVERIFY2(tip.contains(QStringLiteral("holder r2 (%1)").arg(B)), qPrintable(tip));

    model.clear();
    timeline.changes.clear();
    timeline.append(snapshotOf(QStringLiteral("billing"), {20.0, A, 9, 19.5}));
    QCOMPARE(model.index(0, HolderTimeline::HolderColumn).data().toString(), A);
}

void TstHolderTimeline::holderColorsAreStable()
{
    const QPalette palette = QGuiApplication::palette();
    QCOMPARE(HolderTimelineView::holderColor(A, palette),
             HolderTimelineView::holderColor(A, palette));
    QVERIFY(HolderTimelineView::holderColor(A, palette).isValid());
    // Seven colours, so among a handful of holders at least two differ.
    QSet<QRgb> colors;
    for (int i = 0; i < 6; ++i)
        colors.insert(
                HolderTimelineView::holderColor(QStringLiteral("host:%1:0badf00d").arg(i), palette)
                        .rgb());
    QVERIFY(colors.size() > 1);
    // Numbered replicas never share a colour, whatever their ids (checked once: fails with the
    // colour hashed from the name, where r1 to r7 get six colours).
    colors.clear();
    for (int i = 1; i <= 7; ++i)
        colors.insert(HolderTimelineView::holderColor(QStringLiteral("r%1").arg(i), palette).rgb());
    QCOMPARE(colors.size(), 7);
    QCOMPARE(HolderTimelineView::holderColor(QStringLiteral("replica-2"), palette),
             HolderTimelineView::holderColor(QStringLiteral("r2"), palette));
}

QTEST_MAIN(TstHolderTimeline)

#include "tst_holdertimeline.moc"
