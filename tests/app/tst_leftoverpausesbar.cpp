// LeftoverPausesBar: the demo's roles still paused from its last run, said at its start in a line
// above the status table, against a real database through a real ConsoleSession. Unpause all
// unpauses them (recorded as the default who, with why) and the line goes; Keep paused leaves
// them paused and hides the line; a role unpaused elsewhere leaves it; nothing modal opens.

#include "core/consolesession.h"
#include "lease/defaultwho.h"
#include "pg/connection.h"
#include "profilefor.h"
#include "testdatabase.h"
#include "ui/leftoverpausesbar.h"

#include <QApplication>
#include <QDialog>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QtTest>

#include <memory>

using namespace std::chrono_literals;
using leader::console::ConnectionState;
using leader::console::ConsoleSession;
using leader::console::isConnected;
using leader::console::LeftoverPause;
using leader::console::LeftoverPausesBar;
using leader::test::Login;
using leader::test::profileFor;
using leader::test::TestDatabase;

namespace {

constexpr int Timeout = 20000;

enum class Answer { UnpauseAll, KeepPaused, UnpausedElsewhere };

bool anyDialogShown()
{
    for (QWidget *widget : QApplication::topLevelWidgets()) {
        if (qobject_cast<QDialog *>(widget) && widget->isVisible())
            return true;
    }
    return QApplication::activeModalWidget() != nullptr;
}

} // namespace

Q_DECLARE_METATYPE(Answer)

class tst_LeftoverPausesBar final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<TestDatabase> m_db;

    void sql(const std::string &statement)
    {
        m_db->connect(Login::App).exec("test", statement, {}, 5s);
    }

    // "by|reason" of role's pause; empty when it is not paused.
    QString pauseOf(const std::string &role)
    {
        const leader::pg::Result row = m_db->connect(Login::Monitor)
                                               .exec("read",
                                                     "SELECT paused_by || '|' || pause_reason"
                                                     " FROM leader_status WHERE role = $1",
                                                     {role}, 5s);
        return row.isNull(0, 0) ? QString() : QString::fromUtf8(row.text(0, 0));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_db = std::make_unique<TestDatabase>("leftoverpausesbar");
        m_db->migrateLease();
    }
    void cleanupTestCase() { m_db.reset(); }

    void answers_data()
    {
        QTest::addColumn<Answer>("answer");
        QTest::newRow("Unpause all") << Answer::UnpauseAll;
        QTest::newRow("Keep paused") << Answer::KeepPaused;
        QTest::newRow("unpaused from elsewhere") << Answer::UnpausedElsewhere;
    }

    // Checked to fail with Unpause all sending nothing, and with the snapshots not followed.
    void answers()
    {
        QFETCH(Answer, answer);
        m_db->resetLeases();
        sql("SELECT leader_pause('billing', 'alice@ops', 'left over')");
        sql("SELECT leader_pause('dunning', 'alice@ops', 'left over')");

        ConsoleSession session;
        QSignalSpy connection(&session, &ConsoleSession::connectionChanged);
        session.setInterval(500);
        QWidget window;
        auto *layout = new QVBoxLayout(&window);
        layout->addWidget(LeftoverPausesBar::wrap(&session, new QLabel(QStringLiteral("table"))));
        window.resize(1000, 400);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *bar = window.findChild<LeftoverPausesBar *>();
        QVERIFY(bar);
        QVERIFY(!bar->isVisible());

        // As the demo host says it, before the session connects to the demo's database.
        const QDateTime pausedAt = QDateTime::currentDateTimeUtc();
        Q_EMIT session.demoPausedFromLastRun({LeftoverPause{QStringLiteral("billing"),
                                                            QStringLiteral("alice@ops"),
                                                            QStringLiteral("left over"),
                                                            pausedAt,
                                                            {}},
                                              LeftoverPause{QStringLiteral("dunning"),
                                                            QStringLiteral("alice@ops"),
                                                            QStringLiteral("left over"),
                                                            pausedAt,
                                                            {}}});
        session.connectTo(profileFor(m_db->url(Login::App)));
        QVERIFY(bar->isVisible());
        QCOMPARE(bar->roles(), (QStringList{QStringLiteral("billing"), QStringLiteral("dunning")}));
        QVERIFY2(bar->text().startsWith(
                         QStringLiteral("Still paused from the demo's last run: billing, dunning")),
                 qPrintable(bar->text()));
        QVERIFY(!anyDialogShown());
        QTRY_VERIFY_WITH_TIMEOUT(
                !connection.isEmpty()
                        && isConnected(connection.last().at(0).value<ConnectionState>()),
                Timeout);

        switch (answer) {
        case Answer::UnpauseAll: {
            auto *unpause = bar->findChild<QPushButton *>(QStringLiteral("unpauseLeftoverButton"));
            QVERIFY(unpause && unpause->isEnabled());
            QTest::mouseClick(unpause, Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(!bar->isVisible(), Timeout);
            QVERIFY(!anyDialogShown());
            QCOMPARE(pauseOf("billing"), QString());
            QCOMPARE(pauseOf("dunning"), QString());
            // Recorded in the pause log as the console records any unpause.
            const leader::pg::Result log
                    = m_db->connect(Login::Monitor)
                              .exec("log",
                                    "SELECT by FROM leader_ext.leader_pause_log"
                                    " WHERE action = 'unpause' AND role = 'billing'"
                                    " ORDER BY id DESC LIMIT 1",
                                    {}, 5s);
            QCOMPARE(log.rows(), 1);
            QCOMPARE(QString::fromUtf8(log.text(0, 0)),
                     QString::fromStdString(leader::lease::defaultWho()));
            break;
        }
        case Answer::KeepPaused:
            QTest::mouseClick(bar->findChild<QPushButton *>(QStringLiteral("keepLeftoverButton")),
                              Qt::LeftButton);
            QVERIFY(!bar->isVisible());
            QCOMPARE(pauseOf("billing"), QStringLiteral("alice@ops|left over"));
            QCOMPARE(pauseOf("dunning"), QStringLiteral("alice@ops|left over"));
            break;
        case Answer::UnpausedElsewhere:
            sql("SELECT leader_unpause('billing')");
            QTRY_COMPARE_WITH_TIMEOUT(bar->roles(), QStringList{QStringLiteral("dunning")},
                                      Timeout);
            QVERIFY(bar->isVisible());
            QVERIFY(bar->text().contains(QStringLiteral("last run: dunning —")));
            sql("SELECT leader_unpause('dunning')");
            QTRY_VERIFY_WITH_TIMEOUT(!bar->isVisible(), Timeout);
            break;
        }
        session.shutdown();
    }
};

QTEST_MAIN(tst_LeftoverPausesBar)
#include "tst_leftoverpausesbar.moc"
