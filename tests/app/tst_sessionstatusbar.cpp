// The status bar's connection line, early take, latency and drift, and the stale banner's reason
// drawn from the same facts: the connection's own line while it is not up, else the last poll
// error, else the poll's silence.

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
        QTest::newRow("reconnected")
                << ConnectionState::Connected << "reconnected to a new session after 4 s"
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
        // Not connected: the banner says what the status bar says.
        if (state != ConnectionState::Connected)
            QCOMPARE(status.staleReason(), line);
    }

    void staleReasonWhileConnected()
    {
        QStatusBar bar;
        SessionStatusBar status(&bar);
        status.showConnection(ConnectionState::Connected, {}, Target);
        QCOMPARE(status.staleReason(),
                 QStringLiteral("No answer from the database within two poll intervals."));
        status.showPollProblem(QStringLiteral("permission denied for view leader_status"));
        QCOMPARE(status.staleReason(),
                 QStringLiteral("Poll failed: permission denied for view leader_status"));
        QCOMPARE(bar.currentMessage(), status.staleReason());
        // Rows again: the problem is over.
        status.showSnapshot(StatusSnapshot{});
        QCOMPARE(status.staleReason(),
                 QStringLiteral("No answer from the database within two poll intervals."));
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
