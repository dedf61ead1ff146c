// The stale mark over the status table: one line over the header that moves no row, names the
// target once, counts the outage up, and reads at 4.5:1 or better in every theme. Each check was
// seen failing once against its mutation (noted at each).

#include "core/timerule.h"
#include "models/statusmodel.h"
#include "ui/sessionstatusbar.h"
#include "ui/stalebanner.h"
#include "ui/statuspane.h"
#include "ui/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace leader::console;

Q_DECLARE_METATYPE(leader::console::Theme)

namespace {

const QString Target = QStringLiteral("demo (console@localhost:5432/hardcount)");
// A failed connect as the status reader passes it on: the target restated by the engine, then
// by libpq.
const QString Refused = QStringLiteral(
        "cannot reach the server: cannot connect to console@localhost:5432/hardcount: connection "
        "to server at \"localhost\" (::1), port 5432 failed: Connection refused; Is the server "
        "running on that host and accepting TCP/IP connections?");
const QDateTime AsOf(QDate(2026, 3, 2), QTime(14, 3, 12), Qt::UTC);

StatusSnapshot rows(int count)
{
    StatusSnapshot snapshot;
    for (int i = 0; i < count; ++i) {
        RoleStatus role;
        role.role = QStringLiteral("role_%1").arg(i, 2, 10, QChar('0'));
        role.state = RoleState::Led;
        role.holderId = QStringLiteral("vm:100%1:0badf00d").arg(i);
        role.lastTickAgeSeconds = 1.5;
        snapshot.roles << role;
    }
    snapshot.receivedAt = AsOf;
    return snapshot;
}

// WCAG 2's relative luminance and contrast ratio.
double luminance(const QColor &colour)
{
    const auto linear = [](double c) {
        return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF())
           + 0.0722 * linear(colour.blueF());
}

double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// What the table shows: the viewport in the pane's coordinates and the rows wholly inside it.
struct TableGeometry
{
    QRect viewport;
    int visibleRows = 0;
    int scrollMaximum = 0;
};

TableGeometry geometryOf(const StatusPane &pane)
{
    const QTableView *view = pane.view();
    const QWidget *viewport = view->viewport();
    TableGeometry geometry;
    geometry.viewport = QRect(viewport->mapTo(&pane, QPoint(0, 0)), viewport->size());
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        if (viewport->rect().contains(view->visualRect(view->model()->index(row, 0))))
            ++geometry.visibleRows;
    }
    geometry.scrollMaximum = view->verticalScrollBar()->maximum();
    return geometry;
}

QRect inPane(const StatusPane &pane, const QWidget *widget)
{
    return QRect(widget->mapTo(&pane, QPoint(0, 0)), widget->size());
}

} // namespace

class StaleBannerTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // Mutations seen failing: the banner put back into the pane's layout above the table (the
    // viewport shrinks, a row goes behind the scrollbar), and its margins grown to 6 px a side
    // (it covers the first row).
    void tableDoesNotMove_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<int>("roleCount");
        QTest::newRow("five roles, room to spare") << QSize(900, 320) << 5;
        QTest::newRow("twelve roles, a scrollbar") << QSize(700, 200) << 12;
        QTest::newRow("narrow") << QSize(360, 220) << 5;
    }

    void tableDoesNotMove()
    {
        QFETCH(QSize, size);
        QFETCH(int, roleCount);
        StatusModel model;
        TimeRule rule;
        StatusPane pane(&model, &rule);
        pane.setSnapshot(rows(roleCount));
        pane.resize(size);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        const TableGeometry live = geometryOf(pane);
        QVERIFY(live.visibleRows > 0);

        pane.setStaleReason("retrying — " + Target + ": " + Refused, Refused);
        pane.setStale(true, AsOf);
        const StaleBanner *banner = pane.staleBanner();
        QTRY_VERIFY(banner->isVisible());
        QVERIFY(model.isStale());
        QCoreApplication::processEvents(); // any relayout the banner could cause
        const TableGeometry stale = geometryOf(pane);
        QCOMPARE(stale.viewport, live.viewport);
        QCOMPARE(stale.visibleRows, live.visibleRows);
        QCOMPARE(stale.scrollMaximum, live.scrollMaximum);
        // Over the header, not over a row.
        const QRect band = inPane(pane, banner);
        QVERIFY2(!band.intersects(stale.viewport), "the banner covers a row");
        QVERIFY(band.contains(inPane(pane, pane.view()->horizontalHeader())));

        pane.setStale(false, AsOf);
        QVERIFY(!banner->isVisible());
        QVERIFY(!model.isStale());
        const TableGeometry again = geometryOf(pane);
        QCOMPARE(again.viewport, live.viewport);
        QCOMPARE(again.visibleRows, live.visibleRows);
    }

    // Mutation seen failing: the label wrapping its words instead of eliding (two lines and more
    // at 360 px).
    void oneLine_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("wide") << 1200;
        QTest::newRow("narrow") << 360;
    }

    void oneLine()
    {
        QFETCH(int, width);
        StatusModel model;
        StatusPane pane(&model, nullptr);
        pane.setSnapshot(rows(5));
        pane.resize(width, 260);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.setStaleReason("retrying — " + Target + ": " + Refused, Refused);
        pane.setStale(true, AsOf);
        const StaleBanner *banner = pane.staleBanner();
        QTRY_VERIFY(banner->isVisible());
        const auto *text = banner->findChild<QLabel *>(QStringLiteral("staleText"));
        QVERIFY(text);
        const QFontMetrics metrics = text->fontMetrics();
        QVERIFY(!text->text().contains(QLatin1Char('\n')));
        QVERIFY2(banner->height() <= metrics.height() + 12,
                 qPrintable(QStringLiteral("%1 px tall for a %2 px line")
                                    .arg(banner->height())
                                    .arg(metrics.height())));
        QVERIFY(metrics.horizontalAdvance(text->text()) <= text->contentsRect().width());
        QCOMPARE(banner->width(), pane.view()->width() - 2 * pane.view()->frameWidth());
        // Cut short where narrow; the tooltip has the server's whole text.
        if (width < 600)
            QVERIFY(text->text().endsWith(QChar(0x2026)));
        // And a sign beside it.
        const QList<QLabel *> labels = banner->findChildren<QLabel *>();
        QVERIFY(std::any_of(labels.begin(), labels.end(),
                            [](const QLabel *label) { return !label->pixmap().isNull(); }));
    }

    // The reason as the status bar gives it, in each state an outage passes through: the target
    // once, the engine's and libpq's restatements of host and port not again. Mutation seen
    // failing: staleReason() keeping them ("cannot connect to console@localhost:5432/hardcount:
    // connection to server at "localhost" (::1), port 5432 failed: ").
    void namesTargetOnce_data()
    {
        QTest::addColumn<ConnectionState>("state");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("pollProblem");
        QTest::addColumn<QString>("why");
        const QString refused
                = "retrying — " + Target + ": cannot reach the server: Connection refused";
        QTest::newRow("connect refused")
                << ConnectionState::Failed << Refused << QString() << refused;
        QTest::newRow("reconnecting") << ConnectionState::Connecting << "reconnecting: " + Refused
                                      << QString() << refused;
        QTest::newRow("socket")
                << ConnectionState::Failed
                << "cannot reach the server: cannot connect to console@/tmp:5432/hardcount: "
                   "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: No such file or "
                   "directory Is the server running locally and accepting connections on that "
                   "socket?"
                << QString()
                << "retrying — " + Target + ": cannot reach the server: No such file or directory";
        QTest::newRow("poll failed")
                << ConnectionState::Connected << QString()
                << "permission denied for view leader_status"
                << "retrying — " + Target
                           + ": poll failed: permission denied for view leader_status";
        QTest::newRow("silent") << ConnectionState::Connected << QString() << QString()
                                << "still waiting — " + Target
                                           + ": no answer within two poll intervals";
        QTest::newRow("silent after a reconnect")
                << ConnectionState::Reconnected
                << "reconnected to console@localhost:5432/hardcount after 4.0 s" << QString()
                << "still waiting — " + Target + ": no answer within two poll intervals";
        QTest::newRow("disconnected") << ConnectionState::Disconnected << "disconnected"
                                      << QString() << Target + ": not connected";
    }

    void namesTargetOnce()
    {
        QFETCH(ConnectionState, state);
        QFETCH(QString, message);
        QFETCH(QString, pollProblem);
        QFETCH(QString, why);
        QStatusBar bar;
        SessionStatusBar status(&bar);
        status.showConnection(ConnectionState::Connected, {}, Target);
        status.showSnapshot(rows(5));
        // The first failed connect says why; the retries after it say the same.
        if (state == ConnectionState::Connecting)
            status.showConnection(ConnectionState::Failed, Refused, Target);
        status.showConnection(state, message, Target);
        if (!pollProblem.isEmpty())
            status.showPollProblem(pollProblem);
        QCOMPARE(status.staleReason(), why);

        StatusModel model;
        StatusPane pane(&model, nullptr);
        pane.setSnapshot(rows(5));
        pane.staleBanner()->setClock([] { return AsOf.addSecs(42); });
        pane.setStaleReason(status.staleReason(), status.staleDetail());
        pane.setStale(true, AsOf);
        const QString line = pane.staleBanner()->text();
        QCOMPARE(line.count(Target), 1);
        QCOMPARE(line.count(QStringLiteral("localhost")), 1);
        QCOMPARE(line.count(QStringLiteral("5432")), 1);
        // The tooltip keeps every word the server said.
        if (!message.isEmpty() && state == ConnectionState::Failed)
            QVERIFY(pane.staleBanner()->toolTip().contains(message));
    }

    // Mutation seen failing: the banner's ticker not started (the count stays at 0:42).
    void durationCounts()
    {
        QDateTime now = AsOf.addSecs(42);
        TimeRule rule;
        rule.setMode(TimeZoneMode::Utc);
        StatusModel model;
        StatusPane pane(&model, &rule);
        pane.setSnapshot(rows(5));
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        StaleBanner *banner = pane.staleBanner();
        banner->setClock([&now] { return now; });
        const QString why = "retrying — " + Target + ": cannot reach the server";
        pane.setStaleReason(why, {});
        pane.setStale(true, AsOf);
        QCOMPARE(banner->text(), "Stale for 0:42 — last good poll 14:03:12 (UTC); " + why);
        now = AsOf.addSecs(47);
        QTRY_COMPARE_WITH_TIMEOUT(banner->text(),
                                  "Stale for 0:47 — last good poll 14:03:12 (UTC); " + why, 2500);
        now = AsOf.addSecs(3723);
        QTRY_COMPARE_WITH_TIMEOUT(
                banner->text(), "Stale for 1:02:03 — last good poll 14:03:12 (UTC); " + why, 2500);
        // Fresh rows: the mark goes.
        pane.setSnapshot(rows(5));
        pane.setStale(false, AsOf.addSecs(3724));
        QVERIFY(!banner->isVisible());
    }

    void outageDuration_data()
    {
        QTest::addColumn<qint64>("seconds");
        QTest::addColumn<QString>("text");
        QTest::newRow("none") << qint64(0) << "0:00";
        QTest::newRow("seconds") << qint64(42) << "0:42";
        QTest::newRow("minutes") << qint64(605) << "10:05";
        QTest::newRow("just under an hour") << qint64(3599) << "59:59";
        QTest::newRow("hours") << qint64(3723) << "1:02:03";
    }

    void outageDuration()
    {
        QFETCH(qint64, seconds);
        QFETCH(QString, text);
        QCOMPARE(leader::console::outageDuration(seconds), text);
    }

    // Computed from the colours the banner is drawn with: its band as painted and its text's
    // palette colour. Mutation seen failing: the old roles (BrightText on Dark), 2.6:1 in the
    // light theme and 1.5:1 (red on grey) in the dark one.
    void contrast_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::newRow("system") << Theme::System;
        QTest::newRow("light") << Theme::Light;
        QTest::newRow("dark") << Theme::Dark;
    }

    void contrast()
    {
        QFETCH(Theme, theme);
        applyTheme(theme);
        StatusModel model;
        StatusPane pane(&model, nullptr);
        pane.setSnapshot(rows(5));
        pane.resize(800, 240);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.setStaleReason("retrying — " + Target + ": cannot reach the server", {});
        pane.setStale(true, AsOf);
        StaleBanner *banner = pane.staleBanner();
        QTRY_VERIFY(banner->isVisible());
        const auto *text = banner->findChild<QLabel *>(QStringLiteral("staleText"));
        const QColor ink = text->palette().color(text->foregroundRole());
        // The band's colour where nothing is written on it: its right end.
        const QImage painted = banner->grab().toImage();
        const QColor band = painted.pixelColor(painted.width() - 2, painted.height() / 2);
        QCOMPARE(band.rgb(), banner->palette().color(banner->backgroundRole()).rgb());
        const double ratio = contrastRatio(ink, band);
        QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1 on %2: %3:1")
                                                  .arg(ink.name(), band.name())
                                                  .arg(ratio, 0, 'f', 1)));
        applyTheme(Theme::System);
    }
};

QTEST_MAIN(StaleBannerTest)
#include "tst_stalebanner.moc"
