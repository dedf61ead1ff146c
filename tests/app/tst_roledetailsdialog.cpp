// What each tick did, in the console (migration 0184): the status table's Outcome and Took
// columns, announced precisely as the polls change them, and a role's tick details opened from its
// row as a real widget tree (offscreen), following the polls. Beside replicas that speak only the
// ADR (migration 0189) the details mark a holder outside the registry and say the hour's counts
// are ours only.
//
// Mutation check, done once: with RoleDetailsDialog::refresh showing the Holder cell whatever
// holderOutside says, saysWhoseTheCountsAre's "outside" rows failed; with the hour's tooltip left
// empty, every "ours only" row failed.

#include "models/statusmodel.h"
#include "ui/roledetailsdialog.h"
#include "ui/statuspane.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>

#include <memory>

using leader::console::LossReason;
using leader::console::RoleBacklog;
using leader::console::RoleDetailsDialog;
using leader::console::RoleState;
using leader::console::RoleStatus;
using leader::console::StatusModel;
using leader::console::StatusPane;
using leader::console::StatusSnapshot;
using leader::console::TickCounts;
using leader::console::TickOutcome;

namespace {

RoleStatus role(const QString &name)
{
    RoleStatus status;
    status.role = name;
    status.state = RoleState::Free;
    status.token = 1;
    status.lastTickAgeSeconds = 3;
    return status;
}

RoleStatus ticked(const QString &name, TickOutcome outcome, double took)
{
    RoleStatus status = role(name);
    status.lastOutcome = outcome;
    status.lastDurationSeconds = took;
    status.lastEndedAt = QDateTime::fromMSecsSinceEpoch(1796540000000, Qt::UTC);
    status.lastHolder = QStringLiteral("vm:29601:7014df0c");
    status.lastHour = TickCounts{12, 1, 0, 0};
    return status;
}

StatusSnapshot snapshotOf(const QList<RoleStatus> &roles)
{
    StatusSnapshot snapshot;
    snapshot.roles = roles;
    return snapshot;
}

QString labelText(const QWidget *dialog, const char *name)
{
    const auto *label = dialog->findChild<QLabel *>(QLatin1String(name));
    return label ? label->text() : QStringLiteral("<no %1>").arg(QLatin1String(name));
}

} // namespace

class TestRoleDetailsDialog final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void columnsSayTheLastTick_data();
    void columnsSayTheLastTick();
    void aChangedTickIsAnnouncedOnItsCellsOnly();
    void doubleClickOpensTheDetailsAndTheyFollowThePolls();
    void contextActionRaisesTheOpenDialog();
    void olderSchemaSaysWhatIsMissing();
    void showsTheBacklog_data();
    void showsTheBacklog();
    void saysWhoseTheCountsAre_data();
    void saysWhoseTheCountsAre();

private:
    std::unique_ptr<StatusModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    std::unique_ptr<StatusPane> m_pane;
};

void TestRoleDetailsDialog::init()
{
    m_model = std::make_unique<StatusModel>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
            m_model.get(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_pane = std::make_unique<StatusPane>(m_model.get(), nullptr);
    m_pane->resize(1400, 400);
    m_pane->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_pane.get()));
}

void TestRoleDetailsDialog::cleanup()
{
    m_pane.reset();
    m_tester.reset();
    m_model.reset();
}

void TestRoleDetailsDialog::columnsSayTheLastTick_data()
{
    QTest::addColumn<RoleStatus>("status");
    QTest::addColumn<QString>("outcome");
    QTest::addColumn<QString>("took");
    QTest::newRow("completed") << ticked("billing", TickOutcome::Completed, 1.25) << "completed"
                               << StatusModel::formatSeconds(1.25);
    RoleStatus lost = ticked("billing", TickOutcome::Lost, 4);
    lost.lastLossReason = LossReason::TakenOver;
    QTest::newRow("lost") << lost << "lost (taken_over)" << StatusModel::formatSeconds(4);
    QTest::newRow("none recorded") << role("billing") << QString() << QString();
}

void TestRoleDetailsDialog::columnsSayTheLastTick()
{
    QFETCH(RoleStatus, status);
    QFETCH(QString, outcome);
    QFETCH(QString, took);
    m_pane->setSnapshot(snapshotOf({status}));
    QCOMPARE(m_model->index(0, StatusModel::LastOutcome).data().toString(), outcome);
    QCOMPARE(m_model->index(0, StatusModel::Took).data().toString(), took);
    QCOMPARE(m_model->headerData(StatusModel::LastOutcome, Qt::Horizontal).toString(),
             QStringLiteral("Outcome"));
}

void TestRoleDetailsDialog::aChangedTickIsAnnouncedOnItsCellsOnly()
{
    m_pane->setSnapshot(
            snapshotOf({ticked("billing", TickOutcome::Completed, 1), role("dunning")}));
    QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
    RoleStatus failed = ticked("billing", TickOutcome::Failed, 2);
    failed.lastFailedStep = QStringLiteral("billing > close period > subscription 42");
    failed.lastError = QStringLiteral("nil dereference");
    m_pane->setSnapshot(snapshotOf({failed, role("dunning")}));
    QCOMPARE(changed.size(), 1);
    const QModelIndex first = changed.at(0).at(0).value<QModelIndex>();
    const QModelIndex last = changed.at(0).at(1).value<QModelIndex>();
    const QList<int> roles = changed.at(0).at(2).value<QList<int>>();
    QCOMPARE(first, m_model->index(0, StatusModel::LastOutcome));
    QCOMPARE(last, m_model->index(0, StatusModel::Took));
    QVERIFY(roles.contains(Qt::DisplayRole));
    QVERIFY(roles.contains(Qt::ForegroundRole)); // a failed tick is coloured
    QVERIFY(m_model->index(0, StatusModel::LastOutcome).data(Qt::ForegroundRole).isValid());
    QVERIFY(m_model->index(0, StatusModel::LastOutcome)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("failed step: billing > close period")));
}

void TestRoleDetailsDialog::doubleClickOpensTheDetailsAndTheyFollowThePolls()
{
    RoleStatus failed = ticked("billing", TickOutcome::Failed, 2.5);
    failed.lastFailedStep = QStringLiteral("billing > close period > subscription 42");
    failed.lastError = QStringLiteral("charge failed via postgresql://alice:***@db/pay");
    m_pane->setSnapshot(snapshotOf({failed, role("dunning")}));
    QTableView *view = m_pane->view();
    const QRect cell = view->visualRect(view->model()->index(0, StatusModel::Role));
    // Qt Test's double click lacks the press a view needs first: a click, then the double click.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTRY_VERIFY_WITH_TIMEOUT(m_pane->findChild<RoleDetailsDialog *>() != nullptr, 5000);
    RoleDetailsDialog *dialog = m_pane->findChild<RoleDetailsDialog *>();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QCOMPARE(dialog->role(), QStringLiteral("billing"));
    QCOMPARE(labelText(dialog, "outcomeValue"), QStringLiteral("failed"));
    QCOMPARE(labelText(dialog, "tookValue"), StatusModel::formatSeconds(2.5));
    QCOMPARE(labelText(dialog, "failedStepValue"),
             QStringLiteral("billing > close period > subscription 42"));
    QCOMPARE(labelText(dialog, "errorValue"),
             QStringLiteral("charge failed via postgresql://alice:***@db/pay"));
    QCOMPARE(labelText(dialog, "hourValue"),
             QStringLiteral("12 completed, 1 lost, 0 failed, 0 interrupted"));
    QCOMPARE(labelText(dialog, "endedValue"), QStringLiteral("2026-12-06T06:53:20.000Z"));

    // The next poll: the role's next tick completed.
    RoleStatus completed = ticked("billing", TickOutcome::Completed, 0.5);
    completed.lastHour = TickCounts{13, 1, 0, 0};
    m_pane->setSnapshot(snapshotOf({completed, role("dunning")}));
    QCOMPARE(labelText(dialog, "outcomeValue"), QStringLiteral("completed"));
    QCOMPARE(labelText(dialog, "failedStepValue"), QStringLiteral("none"));
    QCOMPARE(labelText(dialog, "errorValue"), QStringLiteral("none"));
    QCOMPARE(labelText(dialog, "hourValue"),
             QStringLiteral("13 completed, 1 lost, 0 failed, 0 interrupted"));

    // The role leaves the rows: the dialog says so instead of showing what was.
    m_pane->setSnapshot(snapshotOf({role("dunning")}));
    QVERIFY(labelText(dialog, "outcomeValue").isEmpty());
    QVERIFY(labelText(dialog, "detailsNote").contains(QStringLiteral("not among the roles")));
}

void TestRoleDetailsDialog::contextActionRaisesTheOpenDialog()
{
    m_pane->setSnapshot(
            snapshotOf({ticked("billing", TickOutcome::Completed, 1), role("dunning")}));
    QVERIFY(m_pane->selectRole(QStringLiteral("dunning")));
    auto *action = m_pane->view()->findChild<QAction *>(QStringLiteral("tickDetailsAction"));
    QVERIFY(action);
    QVERIFY(m_pane->view()->actions().contains(action));
    action->trigger();
    action->trigger();
    const QList<RoleDetailsDialog *> open = m_pane->findChildren<RoleDetailsDialog *>();
    QCOMPARE(open.size(), 1); // asked twice, one window
    QCOMPARE(open.front()->role(), QStringLiteral("dunning"));
}

void TestRoleDetailsDialog::olderSchemaSaysWhatIsMissing()
{
    // Without 0184 there are neither a last tick nor the hour's counts.
    m_pane->setSnapshot(snapshotOf({role("billing")}));
    RoleDetailsDialog *dialog = m_pane->openDetails(QStringLiteral("billing"));
    QVERIFY(dialog);
    QVERIFY(labelText(dialog, "detailsNote").contains(QStringLiteral("0184")));
    QVERIFY(m_model->index(0, StatusModel::LastOutcome)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("0184")));
    // A database with 0184 and no tick yet says that instead.
    RoleStatus none = role("billing");
    none.lastHour = TickCounts{};
    m_pane->setSnapshot(snapshotOf({none}));
    QVERIFY(labelText(dialog, "detailsNote").contains(QStringLiteral("No tick of billing")));
}

// What waits for the role (migration 0186), following the polls: what and how many, the oldest's
// age, and the source's error or the whole read's.
void TestRoleDetailsDialog::showsTheBacklog_data()
{
    QTest::addColumn<StatusSnapshot>("snapshot");
    QTest::addColumn<QString>("backlog");
    QTest::addColumn<QString>("oldest");
    QTest::addColumn<QString>("error");
    const auto with = [](std::optional<qint64> pending, std::optional<double> oldest,
                         const QString &error) {
        RoleStatus status = role("billing");
        status.backlog = RoleBacklog{QStringLiteral("due subscriptions"), pending, oldest, error};
        return snapshotOf({status});
    };
    QTest::newRow("waiting") << with(37, 242, {}) << "37 due subscriptions"
                             << StatusModel::formatSeconds(242) << "none";
    QTest::newRow("nothing waiting")
            << with(0, std::nullopt, {}) << "0 due subscriptions" << QString() << "none";
    QTest::newRow("source failed")
            << with(std::nullopt, std::nullopt, QStringLiteral("42501: permission denied"))
            << "unknown due subscriptions" << QString() << "42501: permission denied";
    QTest::newRow("no source") << snapshotOf({role("billing")})
                               << "none reported (no source registered, or no extension 0186)"
                               << QString() << "none";
    StatusSnapshot unread = snapshotOf({role("billing")});
    unread.backlogError = QStringLiteral(
            "the backlog could not be read: 57014: canceling statement due to statement timeout");
    QTest::newRow("read failed") << unread << "not read" << QString() << unread.backlogError;
}

void TestRoleDetailsDialog::showsTheBacklog()
{
    QFETCH(StatusSnapshot, snapshot);
    m_pane->setSnapshot(snapshotOf({role("billing")}));
    RoleDetailsDialog *dialog = m_pane->openDetails(QStringLiteral("billing"));
    QVERIFY(dialog);
    // Opened before the reading: the next poll fills it in.
    m_pane->setSnapshot(snapshot);
    QTEST(labelText(dialog, "backlogValue"), "backlog");
    QTEST(labelText(dialog, "backlogOldestValue"), "oldest");
    QTEST(labelText(dialog, "backlogErrorValue"), "error");
}

// The hour's counts say "(ours only)" with why in their tooltip while holders outside the registry
// led the role; a holder outside the registry is named as one, with what it takes and does not.
void TestRoleDetailsDialog::saysWhoseTheCountsAre_data()
{
    QTest::addColumn<RoleStatus>("status");
    QTest::addColumn<QString>("hour");
    QTest::addColumn<bool>("oursOnly"); // the hour's tooltip says why
    QTest::addColumn<QString>("heldBy");
    QTest::addColumn<QString>("note");
    const QString counts = QStringLiteral("12 completed, 1 lost, 0 failed, 0 interrupted");
    RoleStatus ours = ticked("billing", TickOutcome::Completed, 1);
    ours.state = RoleState::Led;
    ours.holderId = QStringLiteral("vm:29601:7014df0c");
    ours.holderOutside = false;
    ours.countsOursOnly = false;
    QTest::newRow("ours alone") << ours << counts << false << ours.holderId << QString();
    RoleStatus theirsRan = ours;
    theirsRan.countsOursOnly = true;
    QTest::newRow("ours holds it, theirs ran it")
            << theirsRan << counts + QStringLiteral(" (ours only)") << true << ours.holderId
            << QString();
    RoleStatus outside = theirsRan;
    outside.holderId = QStringLiteral("adr-host:4242:0000abcd");
    outside.holderOutside = true;
    outside.holderLastDurationSeconds = 8;
    QTest::newRow("outside")
            << outside << counts + QStringLiteral(" (ours only)") << true
            << QStringLiteral("adr-host:4242:0000abcd (outside the registry): a replica that "
                              "speaks only the ADR; it takes no hand-over request and no drain, "
                              "and runs its tick to its end; its last tick of the role lasted "
                              "8.0 s")
            << QString();
    RoleStatus onlyTheirs = outside;
    onlyTheirs.lastOutcome.reset();
    onlyTheirs.lastHour = TickCounts{};
    onlyTheirs.holderLastDurationSeconds.reset();
    QTest::newRow("outside, no tick of ours")
            << onlyTheirs
            << QStringLiteral("0 completed, 0 lost, 0 failed, 0 interrupted (ours only)") << true
            << QStringLiteral("adr-host:4242:0000abcd (outside the registry): a replica that "
                              "speaks only the ADR; it takes no hand-over request and no drain, "
                              "and runs its tick to its end")
            << QStringLiteral("No tick of billing recorded yet by our replicas.");
    RoleStatus free = ours;
    free.state = RoleState::Free;
    free.holderId.clear();
    free.holderOutside.reset();
    QTest::newRow("free") << free << counts << false << QStringLiteral("nobody") << QString();
}

void TestRoleDetailsDialog::saysWhoseTheCountsAre()
{
    QFETCH(RoleStatus, status);
    QFETCH(QString, hour);
    QFETCH(bool, oursOnly);
    QFETCH(QString, note);
    m_pane->setSnapshot(snapshotOf({status}));
    RoleDetailsDialog *dialog = m_pane->openDetails(QStringLiteral("billing"));
    QVERIFY(dialog);
    QCOMPARE(labelText(dialog, "hourValue"), hour);
    const QString tip = dialog->findChild<QLabel *>(QStringLiteral("hourValue"))->toolTip();
    QCOMPARE(tip.contains(QLatin1String("record no tick")), oursOnly);
    QTEST(labelText(dialog, "leaseHolderValue"), "heldBy");
    QVERIFY2(labelText(dialog, "detailsNote").startsWith(note),
             qPrintable(labelText(dialog, "detailsNote")));
}

QTEST_MAIN(TestRoleDetailsDialog)
#include "tst_roledetailsdialog.moc"
