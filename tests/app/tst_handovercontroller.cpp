// Role > Hand over… through the real window against a real database (straight to Postgres and
// again through PgBouncer; extension 0185): offered on a led role only, with the reason why not;
// the dialog lists the registry's replicas that could take the role; confirming writes the
// request (the handover log: login, who, why, the replica named) and the holder's tick stops at
// its next RENEW; a refusal is one line, and nothing is written.
//
// Mutation check, done once: with HandoverController::update ignoring the role's state, the
// "free role" check of offeredOnALedRoleOnly fails.
//
// Beside replicas that speak only the ADR (extension 0189): a holder outside the registry, the
// ADR's own ACQUIRE as the app, is not promised to stop; the action, the dialog and the line
// after say when its tick ends, and that the others seen on the role ignore the preference.
// Mutation checks, each done once: with HandoverController::askedText ignoring the holders read
// after the request, anOutsideHolderIsNotPromisedToStop failed on its line (it promised the stop);
// with StatusPoller::handOver reading none, it failed alike, and the line named no others.

#include "adrstatements.h"
#include "core/consolesession.h"
#include "core/profilestore.h"
#include "lease/events.h"
#include "lease/manager.h"
#include "lease/replicaregistry.h"
#include "models/statusmodel.h"
#include "pg/connection.h"
#include "profilefor.h"
#include "testdatabase.h"
#include "ui/handovercontroller.h"
#include "ui/handoverdialog.h"
#include "ui/mainwindow.h"
#include "ui/statuspane.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <atomic>
#include <future>
#include <memory>

using namespace std::chrono_literals;
using namespace leader::console;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::profileFor;
using leader::test::TestDatabase;

namespace {

constexpr int Timeout = 15000;
constexpr auto Short = 5s;
constexpr auto HolderId = "host-a:101:0000000a";
constexpr auto OtherId = "host-b:202:0000000b";

// A holder of billing that honours handovers and ticks until asked to stop (or until released).
struct Holder
{
    explicit Holder(const std::string &url)
        : manager({.database = {.url = url}, .holderId = HolderId, .events = &events})
    {
        manager.honourHandovers(true);
        tick = std::async(std::launch::async, [this] {
            return manager.lead("billing", 0ms, [this](leader::lease::TickContext &context) {
                while (!context.stopRequested() && !done.load())
                    context.sleepFor(50ms);
            });
        });
    }
    ~Holder()
    {
        done = true;
        if (tick.valid())
            tick.wait();
    }
    leader::lease::EventBus events;
    leader::lease::Manager manager;
    std::atomic<bool> done = false;
    std::future<leader::lease::LeadResult> tick;
};

} // namespace

class TstHandoverController final : public QObject
{
    Q_OBJECT

    StatusModel *statusModel() const { return m_window->findChild<StatusModel *>(); }
    QAction *handover() const
    {
        return m_window->findChild<QAction *>(QStringLiteral("handoverAction"));
    }
    QString field(const std::string &sql) const
    {
        return QString::fromStdString(
                std::string(m_owner->exec("field", sql, {}, Short).text(0, 0)));
    }
    void beat(const std::string &holder, const std::string &name)
    {
        leader::lease::replicaSeen(*m_app,
                                   {.holderId = holder,
                                    .host = holder.substr(0, holder.find(':')),
                                    .pid = 4242,
                                    .version = "9.9.9",
                                    .roles = {"billing"},
                                    .name = name},
                                   Short, {}, true);
    }
    // The window on the test database, once its rows are in and the registry was read.
    void open()
    {
        ConsoleOptions options;
        options.mode = ConsoleOptions::Mode::Database;
        options.databaseUrl = QString::fromStdString(m_db->url(Login::App));
        m_window = std::make_unique<MainWindow>(options);
        auto *session = m_window->findChild<ConsoleSession *>();
        QSignalSpy registry(session, &ConsoleSession::registryChanged);
        m_window->show();
        m_window->start();
        QTRY_COMPARE_WITH_TIMEOUT(statusModel()->rowCount(), 5, Timeout);
        QTRY_VERIFY_WITH_TIMEOUT(!registry.isEmpty(), Timeout);
    }
    void select(const QString &role) { m_window->findChild<StatusPane *>()->selectRoles({role}); }
    // The window, billing selected and its Hand over dialog open (null on a failure).
    void openDialog(HandoverDialog *&dialog)
    {
        dialog = nullptr;
        open();
        if (QTest::currentTestFailed())
            return;
        select(QStringLiteral("billing"));
        QTRY_VERIFY_WITH_TIMEOUT(handover()->isEnabled(), Timeout);
        handover()->trigger();
        QTRY_VERIFY((dialog = m_window->findChild<HandoverDialog *>()));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // The direct and PgBouncer runs go side by side: settings apart (see tst_productionguard).
        QCoreApplication::setApplicationName(QStringLiteral("tst_handovercontroller-")
                                             + qEnvironmentVariable("LEADER_TEST_VIA"));
        QSettings().clear();
        m_db = std::make_unique<TestDatabase>("handovercontroller");
        m_db->migrateLease();
        qputenv("PGPASSWORD", qgetenv("LEADER_TEST_PASSWORD"));
        m_app = std::make_unique<Connection>(m_db->connect(Login::App));
        m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
    }

    void init()
    {
        m_db->resetLeases();
        m_owner->execScript("reset",
                            "DELETE FROM leader_ext.leader_replicas;"
                            " TRUNCATE leader_ext.leader_handover_log;"
                            // The last test's request would still prefer r2 for 10 s.
                            " UPDATE leader_leases SET handover_token = NULL, handover_at = NULL,"
                            " handover_to = NULL, handover_from = NULL",
                            Short);
        beat(HolderId, "r1");
        beat(OtherId, "r2");
    }

    void cleanup()
    {
        if (!m_window)
            return;
        QSignalSpy finished(m_window->findChild<ConsoleSession *>(), &ConsoleSession::finished);
        m_window->close();
        QVERIFY(!finished.isEmpty() || finished.wait(5000));
        m_window.reset();
    }

    void cleanupTestCase()
    {
        m_app.reset();
        m_owner.reset();
        m_db.reset();
    }

    void offeredOnALedRoleOnly()
    {
        Holder holder(m_db->url(Login::App));
        open();
        if (QTest::currentTestFailed())
            return;
        QVERIFY(handover()->isVisible());
        select(QStringLiteral("dunning"));
        QTRY_VERIFY_WITH_TIMEOUT(handover()->toolTip().contains(QLatin1String("not led")), Timeout);
        QVERIFY(!handover()->isEnabled());
        select(QStringLiteral("billing"));
        QTRY_VERIFY_WITH_TIMEOUT(handover()->isEnabled(), Timeout);
    }

    // Confirmed to r2: the request is written with who, why and the replica named, and the
    // holder's tick stops at its next RENEW (within a beat, 3 s: this holder has no listener).
    void handsOverToTheReplicaChosen()
    {
        Holder holder(m_db->url(Login::App));
        HandoverDialog *dialog = nullptr;
        openDialog(dialog);
        if (!dialog)
            return;
        QSignalSpy finished(m_window->findChild<ConsoleSession *>(),
                            &ConsoleSession::handoverFinished);
        auto *combo = dialog->findChild<QComboBox *>(QStringLiteral("targetCombo"));
        QCOMPARE(combo->count(), 2); // any replica but r1, and r2
        combo->setCurrentIndex(combo->findData(QStringLiteral("r2")));
        dialog->findChild<QLineEdit *>(QStringLiteral("whoEdit"))
                ->setText(QStringLiteral("alice@ops"));
        dialog->findChild<QLineEdit *>(QStringLiteral("whyEdit"))
                ->setText(QStringLiteral("r1 is slow"));
        dialog->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Timeout);
        const auto result = finished.first().at(0).value<HandoverResult>();
        QVERIFY2(result.ok, qPrintable(result.error));
        QCOMPARE(result.fromHolder, QString(HolderId));
        QCOMPARE(field("SELECT format('%s|%s|%s|%s', role, by, reason, to_replica) "
                       "FROM leader_ext.leader_handover_log"),
                 QStringLiteral("billing|alice@ops|r1 is slow|r2"));
        QCOMPARE(holder.tick.wait_for(10s), std::future_status::ready);
        QVERIFY(holder.tick.get().acquired);
    }

    // Released between the poll and the click, with a replica chosen: the database takes the
    // request as a preference for the next tick, and the line says no tick stops (it named an
    // empty holder as the one stopping, seen under Xvfb).
    void aRoleReleasedMeanwhileIsPreferredWithoutAStop()
    {
        auto holder = std::make_unique<Holder>(m_db->url(Login::App));
        HandoverDialog *dialog = nullptr;
        openDialog(dialog);
        if (!dialog)
            return;
        auto *combo = dialog->findChild<QComboBox *>(QStringLiteral("targetCombo"));
        combo->setCurrentIndex(combo->findData(QStringLiteral("r2")));
        holder.reset();
        QSignalSpy finished(m_window->findChild<HandoverController *>(),
                            &HandoverController::finished);
        dialog->findChild<QLineEdit *>(QStringLiteral("whyEdit"))
                ->setText(QStringLiteral("deploy"));
        dialog->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Timeout);
        const QString line = finished.first().at(0).toString();
        QCOMPARE(line, QStringLiteral("billing handed over: it was not held when asked, so no "
                                      "tick stops; r2 takes its next tick"));
        QCOMPARE(field("SELECT to_replica FROM leader_ext.leader_handover_log"),
                 QStringLiteral("r2"));
    }

    // A free role cannot be handed over without a target: the database refuses, the console says
    // so in one line, and nothing is written. Reached by a stale selection: the role was released
    // between the poll and the click.
    void aRefusalWritesNothing()
    {
        auto holder = std::make_unique<Holder>(m_db->url(Login::App));
        HandoverDialog *dialog = nullptr;
        openDialog(dialog);
        if (!dialog)
            return;
        holder.reset(); // released: nothing to hand over any more
        QSignalSpy finished(m_window->findChild<ConsoleSession *>(),
                            &ConsoleSession::handoverFinished);
        dialog->findChild<QLineEdit *>(QStringLiteral("whyEdit"))->setText(QStringLiteral("late"));
        dialog->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Timeout);
        const auto result = finished.first().at(0).value<HandoverResult>();
        QVERIFY(!result.ok);
        QVERIFY(result.refused);
        QVERIFY2(!result.error.contains(QLatin1Char('\n')), qPrintable(result.error));
        QCOMPARE(field("SELECT count(*) FROM leader_ext.leader_handover_log"), QStringLiteral("0"));
        auto *box = m_window->findChild<QMessageBox *>(QStringLiteral("handoverFailedBox"));
        QVERIFY(box);
        QVERIFY(box->text().contains(QLatin1String("Nothing was changed")));
        box->close();
    }

    void anOutsideHolderIsNotPromisedToStop()
    {
        // Two others ran billing in the hour, and it ran a tick before this one: its last tick
        // is known.
        QVERIFY(leader::test::adrTick(*m_app, "billing", "adr-b:1:0000000b"));
        QVERIFY(leader::test::adrTick(*m_app, "billing", "adr-c:2:0000000c"));
        QVERIFY(leader::test::adrTick(*m_app, "billing"));
        const std::optional<std::int64_t> token = leader::test::adrAcquire(*m_app, "billing");
        QVERIFY(token);
        const QString adr = QString::fromLatin1(leader::test::AdrHolderId);
        open();
        if (QTest::currentTestFailed())
            return;
        select(QStringLiteral("billing"));
        QTRY_VERIFY_WITH_TIMEOUT(handover()->isEnabled(), Timeout);
        QVERIFY2(handover()->toolTip().contains(QLatin1String("outside the replica registry")),
                 qPrintable(handover()->toolTip()));
        handover()->trigger();
        HandoverDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<HandoverDialog *>()));
        const QString summary
                = dialog->findChild<QLabel *>(QStringLiteral("handoverSummary"))->text();
        const QString clause
                = adr
                  + QStringLiteral(" is outside the replica registry and does not take hand-over "
                                   "requests: its tick ends when its work does, about ");
        QVERIFY2(summary.contains(clause)
                         && summary.contains(QLatin1String("(its last tick lasted "))
                         && !summary.contains(QLatin1String("runs no further step")),
                 qPrintable(summary));
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("outsideNote")));

        auto *combo = dialog->findChild<QComboBox *>(QStringLiteral("targetCombo"));
        combo->setCurrentIndex(combo->findData(QStringLiteral("r2")));
        dialog->findChild<QLineEdit *>(QStringLiteral("whyEdit"))->setText(QStringLiteral("move"));
        QSignalSpy finished(m_window->findChild<HandoverController *>(),
                            &HandoverController::finished);
        // Its lease runs 10 s unrenewed: renewed as the product's replica would, so it holds
        // when the console asks.
        QVERIFY(leader::test::adrRenew(*m_app, "billing", *token));
        dialog->findChild<QPushButton *>(QStringLiteral("confirmButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Timeout);
        const QString line = finished.first().at(0).toString();
        QVERIFY2(line.startsWith(QStringLiteral("billing handed over: ") + clause),
                 qPrintable(line));
        QVERIFY2(line.endsWith(QStringLiteral(
                         ", or at its lease's expiry if it stops renewing; r2 takes the next tick "
                         "unless one of the 2 holders outside the registry seen on it in the last "
                         "hour takes it first (they ignore the preference)")),
                 qPrintable(line));
        // Written all the same: our replicas honour its preference once the role is free.
        QCOMPARE(field("SELECT from_holder FROM leader_ext.leader_handover_log"), adr);
    }

private:
    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_app;
    std::unique_ptr<Connection> m_owner;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TstHandoverController)
#include "tst_handovercontroller.moc"
