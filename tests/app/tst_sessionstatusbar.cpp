// The status bar's connection line, early take, latency and drift (blank while stale), and the
// stale banner's reason drawn from the same facts: the connection's problem while it is not up,
// else the last poll error, else the poll's silence; the target named once (tst_stalebanner has
// the banner's side).

#include "ui/sessionstatusbar.h"

#include <QLabel>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>

using namespace leader::console;

namespace {

const QString Target = QStringLiteral("demo (console@localhost:5432/hardcount)");

} // namespace

class SessionStatusBarTest final : public QObject
{
    Q_OBJECT

private:
    static QString label(const QStatusBar &bar, const char *name)
    {
        return bar.findChild<QLabel *>(QLatin1String(name))->text();
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void connectionLine_data()
    {
        QTest::addColumn<ConnectionState>("state");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("line");
        QTest::newRow("connected")
                << ConnectionState::Connected << QString() << "Connected to " + Target;
        // The poller's first message is not shown: the state decides, not the words.
        QTest::newRow("connected with a message")
                << ConnectionState::Connected << "connected to a new session"
                << "Connected to " + Target;
        QTest::newRow("reconnected")
                << ConnectionState::Reconnected << "reconnected to a new session after 4 s"
                << Target + ": reconnected to a new session after 4 s";
        QTest::newRow("connecting")
                << ConnectionState::Connecting << QString() << "Connecting to " + Target + "…";
        QTest::newRow("retrying") << ConnectionState::Connecting << "retrying in 2 s"
                                  << "retrying in 2 s";
        QTest::newRow("failed") << ConnectionState::Failed << "connection refused"
                                << Target + ": connection refused";
        QTest::newRow("disconnected") << ConnectionState::Disconnected << "whatever"
                                      << "Not connected";
    }

    void connectionLine()
    {
        QFETCH(ConnectionState, state);
        QFETCH(QString, message);
        QFETCH(QString, line);
        QStatusBar bar;
        SessionStatusBar status(&bar);
        QCOMPARE(status.showConnection(state, message, Target), line);
        QCOMPARE(label(bar, "connectionLabel"), line);
        // Not connected: the banner's tooltip says what the status bar says.
        if (!isConnected(state))
            QCOMPARE(status.staleDetail(), line);
    }

    void staleReasonWhileConnected()
    {
        QStatusBar bar;
        SessionStatusBar status(&bar);
        status.showConnection(ConnectionState::Connected, {}, Target);
        QCOMPARE(status.staleReason(),
                 "still waiting — " + Target + ": no answer within two poll intervals");
        QCOMPARE(status.staleDetail(),
                 QStringLiteral("No answer from the database within two poll intervals."));
        status.showPollProblem(QStringLiteral("permission denied for view leader_status"));
        QCOMPARE(status.staleReason(),
                 "retrying — " + Target
                         + ": poll failed: permission denied for view leader_status");
        QCOMPARE(status.staleDetail(),
                 QStringLiteral("Poll failed: permission denied for view leader_status"));
        QCOMPARE(bar.currentMessage(), status.staleDetail());
        // Rows again: the problem is over.
        status.showSnapshot(StatusSnapshot{});
        QCOMPARE(status.staleDetail(),
                 QStringLiteral("No answer from the database within two poll intervals."));
        // Not connected and not trying: nothing is retried.
        status.showConnection(ConnectionState::Disconnected, {}, Target);
        QCOMPARE(status.staleReason(), Target + ": not connected");
        // A step (the demo's progress, the shutdown) replaces the connection line.
        status.showStep(QStringLiteral("Stopping the demo"));
        QCOMPARE(label(bar, "connectionLabel"), QStringLiteral("Stopping the demo"));
    }

    void latencyAndDrift_data()
    {
        QTest::addColumn<double>("roundTripMs");
        QTest::addColumn<double>("driftMs");
        QTest::addColumn<QString>("latency");
        QTest::addColumn<QString>("drift");
        QTest::newRow("ahead") << 1.26 << 12.4 << "poll 1.3 ms"
                               << "db clock +12 ms";
        QTest::newRow("behind") << 30.0 << -250.0 << "poll 30.0 ms"
                                << "db clock -250 ms";
        QTest::newRow("even") << 0.0 << 0.0 << "poll 0.0 ms"
                              << "db clock +0 ms";
    }

    void latencyAndDrift()
    {
        QFETCH(double, roundTripMs);
        QFETCH(double, driftMs);
        QFETCH(QString, latency);
        QFETCH(QString, drift);
        QStatusBar bar;
        SessionStatusBar status(&bar);
        StatusSnapshot snapshot;
        snapshot.roundTripMs = roundTripMs;
        snapshot.clockDriftMs = driftMs;
        status.showSnapshot(snapshot);
        QCOMPARE(label(bar, "latencyLabel"), latency);
        QCOMPARE(label(bar, "driftLabel"), drift);
    }

    // While the rows are stale the figures describe a poll that is no longer the last word: blank
    // until fresh rows bring new ones. Mutation seen failing: showStale() leaving the labels.
    void figuresBlankWhileStale()
    {
        QStatusBar bar;
        SessionStatusBar status(&bar);
        status.showConnection(ConnectionState::Connected, {}, Target);
        StatusSnapshot snapshot;
        snapshot.roundTripMs = 1.2;
        snapshot.clockDriftMs = 0;
        status.showSnapshot(snapshot);
        QCOMPARE(label(bar, "latencyLabel"), QStringLiteral("poll 1.2 ms"));
        QCOMPARE(label(bar, "driftLabel"), QStringLiteral("db clock +0 ms"));

        status.showStale();
        QCOMPARE(label(bar, "latencyLabel"), QStringLiteral("poll —"));
        QCOMPARE(label(bar, "driftLabel"), QStringLiteral("db clock —"));
        // Reconnecting brings no figures: only rows do.
        status.showConnection(ConnectionState::Failed, QStringLiteral("cannot reach the server"),
                              Target);
        status.showConnection(ConnectionState::Reconnected,
                              QStringLiteral("reconnected to a new session after 4 s"), Target);
        QCOMPARE(label(bar, "latencyLabel"), QStringLiteral("poll —"));
        QCOMPARE(label(bar, "driftLabel"), QStringLiteral("db clock —"));

        snapshot.roundTripMs = 3.4;
        snapshot.clockDriftMs = -7;
        status.showSnapshot(snapshot);
        QCOMPARE(label(bar, "latencyLabel"), QStringLiteral("poll 3.4 ms"));
        QCOMPARE(label(bar, "driftLabel"), QStringLiteral("db clock -7 ms"));
    }

    void earlyTake_data()
    {
        QTest::addColumn<QList<int>>("switches"); // per role: 1 on, 0 off, -1 unknown (old schema)
        QTest::addColumn<bool>("shown");
        QTest::addColumn<QString>("text");
        QTest::newRow("on everywhere") << QList<int>{1, 1, 1, 1, 1} << true << "early take on";
        QTest::newRow("off everywhere") << QList<int>{0, 0, 0, 0, 0} << true << "early take off";
        QTest::newRow("off for two")
                << QList<int>{0, 1, 0, 1, 1} << true << "early take off: r0, r2";
        QTest::newRow("a schema without the switch")
                << QList<int>{-1, -1, -1, -1, -1} << false << "";
    }

    void earlyTake()
    {
        QFETCH(QList<int>, switches);
        QFETCH(bool, shown);
        QFETCH(QString, text);
        QStatusBar bar;
        bar.show();
        SessionStatusBar status(&bar);
        StatusSnapshot snapshot;
        for (qsizetype i = 0; i < switches.size(); ++i) {
            RoleStatus role;
            role.role = QStringLiteral("r%1").arg(i);
            if (switches[i] >= 0)
                role.earlyTake = switches[i] == 1;
            snapshot.roles << role;
        }
        status.showSnapshot(snapshot);
        const QLabel *label = bar.findChild<QLabel *>(QStringLiteral("earlyTakeLabel"));
        QCOMPARE(label->isVisible(), shown);
        if (shown)
            QCOMPARE(label->text(), text);
    }
};

QTEST_MAIN(SessionStatusBarTest)
#include "tst_sessionstatusbar.moc"
