// Drain and Undrain in the Replicas tab (extension 0183) against a real database, straight to
// Postgres and through PgBouncer: the dialog's guards (why required, "Drain anyway" for the last
// eligible replica of a role, the replica's name typed on production), the drain asked of the
// database's own predicate before the dialog opens, the Drain and Drained by columns under
// QAbstractItemModelTester, the drain log's login, who and why, and a monitor login that sees
// both actions disabled with the reason.
//
// Mutation check, done once: with DrainDialog::canConfirm ignoring the force box, dialogGuards'
// row "last eligible, not forced" fails.
//
// Beside replicas that speak only the ADR (extension 0189): a role that a holder outside the
// registry ran in the last hour is never said to run nowhere, and the dialog and the line after
// the drain name those holders. Mutation checks, each done once: with DrainDialog keeping every
// orphan given (no runNowhere), outsideHoldersRunOn's rows "outside beside an orphan" and "only
// outside" failed; with StatusPoller::checkDrain reading no holders outside the registry,
// drainNamesHoldersOutsideTheRegistry failed on the dialog's label.

#include "adrstatements.h"
#include "core/consolesession.h"
#include "lease/draincontrol.h"
#include "lease/replicaregistry.h"
#include "models/registrymodel.h"
#include "pg/connection.h"
#include "profilefor.h"
#include "schema/migrator.h"
#include "testdatabase.h"
#include "ui/connectioncontroller.h"
#include "ui/draindialog.h"
#include "ui/registrycontroller.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include <memory>

using namespace std::chrono_literals;
using namespace leader::console;
using leader::pg::Connection;
using leader::test::Login;
using leader::test::profileFor;
using leader::test::TestDatabase;

Q_DECLARE_METATYPE(leader::console::OutsideHolders)

namespace {

constexpr int Timeout = 15000;
constexpr auto Short = 5s;

// The tab on its own, as the window builds it.
struct Tab
{
    std::unique_ptr<QWidget> window = std::make_unique<QWidget>();
    ConsoleSession *session = new ConsoleSession(window.get());
    ConnectionController *connection = new ConnectionController(window.get(), session, false);
    QTabWidget *tabs = new QTabWidget(window.get());
    RegistryController *controller
            = new RegistryController(session, connection, tabs, nullptr, window.get());

    RegistryModel *model() const
    {
        return window->findChild<RegistryModel *>(QStringLiteral("registryModel"));
    }
    QTableView *view() const { return window->findChild<QTableView *>("registryView"); }
    QPushButton *button(const char *name) const { return window->findChild<QPushButton *>(name); }
    QString line() const { return window->findChild<QLabel *>("drainResult")->text(); }
    // Selects the first row of replica name.
    bool select(const QString &name) const
    {
        for (int row = 0; row < model()->rowCount(); ++row) {
            if (model()->replicaAt(row) == name) {
                view()->selectRow(row);
                return true;
            }
        }
        return false;
    }
    QString cell(const QString &name, int column) const
    {
        for (int row = 0; row < model()->rowCount(); ++row) {
            if (model()->replicaAt(row) == name)
                return model()->index(row, column).data().toString();
        }
        return QStringLiteral("(no row)");
    }
};

DrainDialog *openDialog()
{
    for (QWidget *widget : QApplication::topLevelWidgets()) {
        if (auto *dialog = widget->findChild<DrainDialog *>(); dialog && dialog->isVisible())
            return dialog;
        if (auto *dialog = qobject_cast<DrainDialog *>(widget); dialog && dialog->isVisible())
            return dialog;
    }
    return nullptr;
}

} // namespace

class TstRegistryDrain final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        m_db = std::make_unique<TestDatabase>("registrydrain");
        m_db->migrateLease();
        m_app = std::make_unique<Connection>(m_db->connect(Login::App));
        m_owner = std::make_unique<Connection>(m_db->connect(Login::Owner));
    }

    void init()
    {
        m_db->resetLeases();
        m_owner->execScript("reset",
                            "DELETE FROM leader_ext.leader_replicas;"
                            " DELETE FROM leader_ext.leader_replica_drains;"
                            " TRUNCATE leader_ext.leader_drain_log",
                            Short);
        // r1 runs billing and dunning, r2 billing: r1 is dunning's last eligible replica.
        beat("host-a:101:0000000a", "r1", {"billing", "dunning"});
        beat("host-b:202:0000000b", "r2", {"billing"});
    }

    void dialogGuards_data()
    {
        QTest::addColumn<bool>("drain");
        QTest::addColumn<QStringList>("orphans");
        QTest::addColumn<bool>("production");
        QTest::addColumn<QString>("why");
        QTest::addColumn<bool>("forced");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<bool>("confirms");
        QTest::newRow("drain with a why")
                << true << QStringList() << false << "deploy" << false << QString() << true;
        QTest::newRow("drain without a why")
                << true << QStringList() << false << "  " << false << QString() << false;
        QTest::newRow("last eligible, not forced") << true << QStringList{"dunning"} << false
                                                   << "deploy" << false << QString() << false;
        QTest::newRow("last eligible, forced")
                << true << QStringList{"dunning"} << false << "deploy" << true << QString() << true;
        QTest::newRow("production, name not typed")
                << true << QStringList() << true << "deploy" << false << "r" << false;
        QTest::newRow("production, name typed")
                << true << QStringList() << true << "deploy" << false << "r1" << true;
        QTest::newRow("undrain needs no why")
                << false << QStringList() << false << QString() << false << QString() << true;
    }

    void dialogGuards()
    {
        QFETCH(bool, drain);
        QFETCH(QStringList, orphans);
        QFETCH(bool, production);
        QFETCH(QString, why);
        QFETCH(bool, forced);
        QFETCH(QString, typed);
        QFETCH(bool, confirms);
        DrainDialog dialog(drain ? DrainDialog::Mode::Drain : DrainDialog::Mode::Undrain,
                           QStringLiteral("r1"), orphans, QStringLiteral("lt_app@db"));
        dialog.setTypedConfirmation(production);
        dialog.findChild<QLineEdit *>("whyEdit")->setText(why);
        auto *force = dialog.findChild<QCheckBox *>("forceCheck");
        QCOMPARE(force != nullptr, !orphans.isEmpty());
        if (force) {
            // The confirmation names the role.
            QVERIFY(dialog.findChild<QLabel *>("lastReplicaWarning")
                            ->text()
                            .contains(QLatin1String("last eligible replica of dunning")));
            force->setChecked(forced);
        }
        dialog.findChild<QLineEdit *>("typedNameEdit")->setText(typed);
        QCOMPARE(dialog.canConfirm(), confirms);
        QCOMPARE(dialog.findChild<QPushButton *>("confirmButton")->isEnabled(), confirms);
        QCOMPARE(dialog.force(), forced);
    }

    void outsideHoldersRunOn_data()
    {
        QTest::addColumn<QStringList>("given"); // the database's orphans
        QTest::addColumn<OutsideHolders>("outside");
        QTest::addColumn<QStringList>("orphans"); // those said to run nowhere
        QTest::addColumn<QString>("named");       // the outsideHolders label; empty: none
        const OutsideHolder holds{
                QStringLiteral("billing"), QStringLiteral("adr:1:0000000a"), 0.4, true, 2.5, 3.0};
        const OutsideHolder seen{QStringLiteral("billing"),
                                 QStringLiteral("adr:2:0000000b"),
                                 12,
                                 false,
                                 0,
                                 std::nullopt};
        const QString both = QStringLiteral(
                "billing also runs on holders outside the registry, which take no drain (2 seen "
                "in the last hour): adr:1:0000000a (holds it now), adr:2:0000000b (seen 12.0 s "
                "ago)");
        QTest::newRow("none outside") << QStringList{"dunning"} << OutsideHolders{}
                                      << QStringList{"dunning"} << QString();
        QTest::newRow("outside beside an orphan")
                << QStringList{"billing", "dunning"} << OutsideHolders{{holds, seen}, {}}
                << QStringList{"dunning"} << both;
        QTest::newRow("only outside") << QStringList{"billing"} << OutsideHolders{{holds, seen}, {}}
                                      << QStringList() << both;
        QTest::newRow("outside, no orphan")
                << QStringList() << OutsideHolders{{seen}, {}} << QStringList()
                << QStringLiteral("billing also runs on holders outside the registry, which take "
                                  "no drain (1 seen in the last hour): adr:2:0000000b (seen 12.0 s "
                                  "ago)");
        QTest::newRow("unreadable")
                << QStringList{"dunning"} << OutsideHolders{{}, QStringLiteral("privilege missing")}
                << QStringList{"dunning"}
                << QStringLiteral("Whether holders outside the replica registry run its roles "
                                  "could not be read: privilege missing");
    }

    void outsideHoldersRunOn()
    {
        QFETCH(QStringList, given);
        QFETCH(OutsideHolders, outside);
        QFETCH(QStringList, orphans);
        QFETCH(QString, named);
        DrainDialog dialog(DrainDialog::Mode::Drain, QStringLiteral("r1"), given,
                           QStringLiteral("lt_app@db"), outside);
        QCOMPARE(dialog.orphans(), orphans);
        const auto *label = dialog.findChild<QLabel *>("outsideHolders");
        QCOMPARE(label ? label->text() : QString(), named);
        // The force box and the warning name only the roles that would run nowhere.
        const auto *warning = dialog.findChild<QLabel *>("lastReplicaWarning");
        QCOMPARE(warning != nullptr, !orphans.isEmpty());
        QCOMPARE(dialog.findChild<QCheckBox *>("forceCheck") != nullptr, !orphans.isEmpty());
        if (warning)
            QVERIFY2(!warning->text().contains(QLatin1String("billing")),
                     qPrintable(warning->text()));
        dialog.findChild<QLineEdit *>("whyEdit")->setText(QStringLiteral("deploy"));
        QCOMPARE(dialog.canConfirm(), orphans.isEmpty());
    }

    // The product's own replica holds dunning (the ADR's ACQUIRE as the app, a holder the
    // registry does not know): r1 is no longer dunning's last eligible replica, the dialog names
    // the holder instead, and so does the line after the drain.
    void drainNamesHoldersOutsideTheRegistry()
    {
        QVERIFY(leader::test::adrAcquire(*m_app, "dunning"));
        Tab tab;
        QAbstractItemModelTester tester(tab.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reads(tab.session, &ConsoleSession::registryChanged);
        QSignalSpy privileges(tab.session, &ConsoleSession::privilegesChanged);
        tab.session->setInterval(60000);
        tab.session->connectTo(profileFor(m_db->url(Login::App)));
        QTRY_VERIFY_WITH_TIMEOUT(!reads.isEmpty() && !privileges.isEmpty(), Timeout);
        QVERIFY(tab.select("r1"));
        tab.button("drainButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(openDialog() != nullptr, Timeout);
        DrainDialog *dialog = openDialog();
        QCOMPARE(dialog->orphans(), QStringList());
        QVERIFY(!dialog->findChild<QCheckBox *>("forceCheck"));
        const QString named
                = QStringLiteral("dunning also runs on holders outside the registry, which "
                                 "take no drain (1 seen in the last hour): %1 (holds it now)")
                          .arg(QLatin1String(leader::test::AdrHolderId));
        const auto *label = dialog->findChild<QLabel *>("outsideHolders");
        QVERIFY(label);
        QCOMPARE(label->text(), named);
        dialog->findChild<QLineEdit *>("whyEdit")->setText(QStringLiteral("deploy 1.4.1"));
        dialog->findChild<QPushButton *>("confirmButton")->click();
        QTRY_COMPARE_WITH_TIMEOUT(tab.line(),
                                  QStringLiteral("Drained r1: it starts no new tick; running "
                                                 "ticks end as they would\n")
                                          + named,
                                  Timeout);
        QCOMPARE(scalar("SELECT coalesce(array_to_string(forced, ','), '') FROM "
                        "leader_ext.leader_drain_log"),
                 QString());
    }

    void drainAndUndrainFromTheTab()
    {
        Tab tab;
        QVERIFY(tab.model());
        QAbstractItemModelTester tester(tab.model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy reads(tab.session, &ConsoleSession::registryChanged);
        QSignalSpy privileges(tab.session, &ConsoleSession::privilegesChanged);
        tab.session->setInterval(60000);
        tab.session->connectTo(profileFor(m_db->url(Login::App)));
        QTRY_VERIFY_WITH_TIMEOUT(!reads.isEmpty() && !privileges.isEmpty(), Timeout);
        QCOMPARE(tab.model()->headerData(RegistryModel::Drain, Qt::Horizontal).toString(),
                 QStringLiteral("Drain"));
        QCOMPARE(tab.model()->headerData(RegistryModel::DrainedBy, Qt::Horizontal).toString(),
                 QStringLiteral("Drained by"));
        QCOMPARE(tab.cell("r1", RegistryModel::Drain), QString());

        QVERIFY(!tab.button("drainButton")->isEnabled()); // nothing selected
        QVERIFY(tab.select("r1"));
        QVERIFY(tab.button("drainButton")->isEnabled());
        QVERIFY(!tab.button("undrainButton")->isEnabled());
        tab.button("drainButton")->click();
        // The database's predicate answers first: r1 is dunning's last eligible replica.
        QTRY_VERIFY_WITH_TIMEOUT(openDialog() != nullptr, Timeout);
        DrainDialog *dialog = openDialog();
        QCOMPARE(dialog->orphans(), QStringList{"dunning"});
        dialog->findChild<QLineEdit *>("whoEdit")->setText(QStringLiteral("alice@ops"));
        dialog->findChild<QLineEdit *>("whyEdit")->setText(QStringLiteral("deploy 1.4.1"));
        QVERIFY(!dialog->findChild<QPushButton *>("confirmButton")->isEnabled());
        dialog->findChild<QCheckBox *>("forceCheck")->setChecked(true);
        dialog->findChild<QPushButton *>("confirmButton")->click();

        QTRY_COMPARE_WITH_TIMEOUT(tab.line(),
                                  QStringLiteral("Drained r1: it starts no new tick; running "
                                                 "ticks end as they would"),
                                  Timeout);
        QTRY_COMPARE_WITH_TIMEOUT(tab.cell("r1", RegistryModel::Drain), QStringLiteral("draining"),
                                  Timeout);
        QCOMPARE(tab.cell("r1", RegistryModel::DrainedBy), QStringLiteral("alice@ops"));
        QCOMPARE(tab.cell("r2", RegistryModel::Drain), QString());
        QCOMPARE(scalar("SELECT login || ' ' || by || ' ' || reason || ' ' || "
                        "array_to_string(forced, ',') FROM leader_ext.leader_drain_log"),
                 QStringLiteral("%1 alice@ops deploy 1.4.1 dunning")
                         .arg(QString::fromStdString(leader::test::loginName(Login::App))));
        // The replica reports it runs nothing: drained.
        leader::lease::drainBeat(*m_app, "host-a:101:0000000a", false, std::vector<std::string>{},
                                 Short);
        tab.session->refresh();
        QTRY_COMPARE_WITH_TIMEOUT(tab.cell("r1", RegistryModel::Drain), QStringLiteral("drained"),
                                  Timeout);

        QVERIFY(tab.select("r1"));
        QTRY_VERIFY(tab.button("undrainButton")->isEnabled());
        QVERIFY(!tab.button("drainButton")->isEnabled());
        tab.button("undrainButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(openDialog() != nullptr, Timeout);
        openDialog()->findChild<QPushButton *>("confirmButton")->click();
        QTRY_COMPARE_WITH_TIMEOUT(tab.line(), QStringLiteral("Undrained r1: it starts ticks again"),
                                  Timeout);
        QTRY_COMPARE_WITH_TIMEOUT(tab.cell("r1", RegistryModel::Drain), QString(), Timeout);
        QCOMPARE(scalar("SELECT count(*) FROM leader_ext.leader_replica_drains"),
                 QStringLiteral("0"));
    }

    void monitorSeesTheActionsDisabled()
    {
        Tab tab;
        QSignalSpy reads(tab.session, &ConsoleSession::registryChanged);
        QSignalSpy privileges(tab.session, &ConsoleSession::privilegesChanged);
        tab.session->setInterval(60000);
        tab.session->connectTo(profileFor(m_db->url(Login::Monitor)));
        QTRY_VERIFY_WITH_TIMEOUT(!reads.isEmpty() && !privileges.isEmpty(), Timeout);
        QVERIFY(tab.select("r1"));
        QVERIFY(!tab.button("drainButton")->isEnabled());
        QVERIFY(!tab.button("undrainButton")->isEnabled());
        QVERIFY2(!tab.button("drainButton")->toolTip().isEmpty(),
                 qPrintable(tab.button("drainButton")->toolTip()));
        // Asked anyway (a stale button, say): one line, nothing written.
        QSignalSpy finished(tab.session, &ConsoleSession::drainFinished);
        tab.session->drain(QStringLiteral("r1"), QStringLiteral("mallory"), QStringLiteral("x"),
                           true);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), Timeout);
        const auto result = finished.front().front().value<DrainResult>();
        QVERIFY(!result.ok);
        QVERIFY2(result.error.contains(QLatin1String("privilege")) && !result.error.contains('\n'),
                 qPrintable(result.error));
        QCOMPARE(scalar("SELECT count(*) FROM leader_ext.leader_drain_log"), QStringLiteral("0"));
    }

    // Without 0183 both actions are disabled, their tooltip saying what draining needs.
    void olderSchemaDisablesTheActions()
    {
        leader::schema::Migrator migrator(*m_owner);
        const auto restore = qScopeGuard([&migrator] {
            migrator.migrate(
                    {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
        });
        QVERIFY(!migrator.rollbackTo(183).empty());
        Tab tab;
        QSignalSpy reads(tab.session, &ConsoleSession::registryChanged);
        QSignalSpy privileges(tab.session, &ConsoleSession::privilegesChanged);
        tab.session->setInterval(60000);
        tab.session->connectTo(profileFor(m_db->url(Login::App)));
        QTRY_VERIFY_WITH_TIMEOUT(!reads.isEmpty() && !privileges.isEmpty(), Timeout);
        QVERIFY(tab.select("r1"));
        QVERIFY(!tab.button("drainButton")->isEnabled());
        QVERIFY(!tab.button("undrainButton")->isEnabled());
        QVERIFY2(tab.button("drainButton")->toolTip().contains(QLatin1String("leader_ext 0183")),
                 qPrintable(tab.button("drainButton")->toolTip()));
        QCOMPARE(tab.cell("r1", RegistryModel::Drain), QString());
    }

private:
    void beat(const std::string &holder, const std::string &name,
              const std::vector<std::string> &roles)
    {
        leader::lease::replicaSeen(*m_app,
                                   {.holderId = holder,
                                    .host = holder.substr(0, holder.find(':')),
                                    .pid = 4242,
                                    .version = "9.9.9",
                                    .roles = roles,
                                    .name = name},
                                   Short, {}, true);
    }
    QString scalar(const std::string &sql)
    {
        return QString::fromStdString(
                std::string(m_owner->exec("read", sql, {}, Short).text(0, 0)));
    }

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_app;
    std::unique_ptr<Connection> m_owner;
};

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    TstRegistryDrain test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_registrydrain.moc"
