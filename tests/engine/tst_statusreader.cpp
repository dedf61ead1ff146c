// The console's facade over a database with ADR-114's 0174 and 0175 alone, as the application's
// own migration tool leaves it (issue 32): StatusReader and PauseLogReader read it, pause and
// unpause through the ADR's functions, and say in one line what each missing extension would add,
// against a real Postgres (the suite runs again through PgBouncer with nothing else changed).

#include "monitor/pauselogreader.h"
#include "monitor/statusreader.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QtTest>

#include <memory>
#include <stop_token>

using namespace std::chrono_literals;
using leader::monitor::Access;
using leader::monitor::Failure;
using leader::monitor::StatusReader;
using leader::monitor::StatusRows;
using leader::test::Login;
using leader::test::TestDatabase;

namespace {

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

template<typename T>
QString failureOf(const leader::monitor::Outcome<T> &outcome)
{
    const Failure *failure = std::get_if<Failure>(&outcome);
    return failure ? qs(failure->message) : QString();
}

} // namespace

class TestStatusReader final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void openSaysWhatTheExtensionsWouldAdd();
    void theLastExtensionsAreNamedToo_data();
    void theLastExtensionsAreNamedToo();
    void pollReadsTheAdrView();
    void pausesAndUnpausesThroughTheAdrFunctions();
    void aRefusedRolePausesNone();
    void anEndNeedsThePauseLog();
    void registryAndHistorySayWhatTheyNeed();
    void everyExtensionWakesAndRecords();

private:
    // An open reader as the given login; null after a failed check.
    std::unique_ptr<StatusReader> open(const TestDatabase &database, Login login);
    QStringList paused(StatusReader &reader);

    std::unique_ptr<TestDatabase> m_adr;  // 0174 and 0175 only
    std::unique_ptr<TestDatabase> m_full; // and every extension
    std::stop_source m_stop;
};

void TestStatusReader::initTestCase()
{
    m_adr = std::make_unique<TestDatabase>("statusreader_adr");
    leader::pg::Connection owner = m_adr->connect(Login::Owner);
    leader::schema::Migrator(owner).migrate({leader::schema::MigrationSet::Adr});
    m_full = std::make_unique<TestDatabase>("statusreader_full");
    m_full->migrateLease();
}

void TestStatusReader::init()
{
    for (const TestDatabase *database : {m_adr.get(), m_full.get()})
        database->connect(Login::Owner)
                .exec("reset pauses",
                      "SELECT leader_unpause(role) FROM leader_leases WHERE paused_at IS NOT NULL",
                      {}, 5s);
}

std::unique_ptr<StatusReader> TestStatusReader::open(const TestDatabase &database, Login login)
{
    auto reader = std::make_unique<StatusReader>(database.url(login), m_stop.get_token(), 5s);
    const leader::monitor::Outcome<Access> access = reader->open();
    [&] {
        QVERIFY2(failureOf(access).isEmpty(), qPrintable(failureOf(access)));
    }();
    return QTest::currentTestFailed() ? nullptr : std::move(reader);
}

QStringList TestStatusReader::paused(StatusReader &reader)
{
    const leader::monitor::Outcome<StatusRows> rows = reader.poll();
    [&] {
        QVERIFY2(failureOf(rows).isEmpty(), qPrintable(failureOf(rows)));
    }();
    QStringList roles;
    if (const auto *status = std::get_if<StatusRows>(&rows)) {
        for (const leader::monitor::RoleRow &row : status->roles) {
            if (row.state == "paused")
                roles << qs(row.role);
        }
    }
    return roles;
}

// The app login may pause with the ADR's functions alone, and the line names what the extensions
// would add and how. Checked once to fail with the earlier rule (pausing disabled, "pausing from
// this console needs lease migration 0177").
void TestStatusReader::openSaysWhatTheExtensionsWouldAdd()
{
    StatusReader app(m_adr->url(Login::App), m_stop.get_token(), 5s);
    const leader::monitor::Outcome<Access> opened = app.open();
    QVERIFY2(failureOf(opened).isEmpty(), qPrintable(failureOf(opened)));
    const Access &access = std::get<Access>(opened);
    QVERIFY(access.features.adr());
    QCOMPARE(access.features.extension, 0);
    QVERIFY(access.canPause && access.canUnpause);
    QVERIFY2(access.readOnlyReason.empty(), access.readOnlyReason.c_str());
    QVERIFY2(qs(access.schemaWarning).startsWith("the extensions leader_ext 0176 to 0190 would add")
                     && qs(access.schemaWarning).contains("leaderctl migrate --print-sql"),
             access.schemaWarning.c_str());

    StatusReader monitor(m_adr->url(Login::Monitor), m_stop.get_token(), 5s);
    const leader::monitor::Outcome<Access> read = monitor.open();
    QVERIFY2(failureOf(read).isEmpty(), qPrintable(failureOf(read)));
    QVERIFY(!std::get<Access>(read).canPause);
    QCOMPARE(qs(std::get<Access>(read).readOnlyReason),
             QStringLiteral(
                     "read-only: lt_monitor has no EXECUTE on leader_pause or leader_unpause"));
}

void TestStatusReader::theLastExtensionsAreNamedToo_data()
{
    QTest::addColumn<int>("applied");
    QTest::addColumn<QString>("summary");
    QTest::newRow("up to 0186")
            << 186
            << "the extensions leader_ext 0187 to 0190 would add the registry read at one lock "
               "scan per query, the read-first poll's read planned once per server session, "
               "pauses with an end that end for replicas that speak only the ADR too, hand-overs "
               "only leader_handover may ask for and backlog sources run only if leader_ext's "
               "owner owns them. Add";
    QTest::newRow("up to 0188")
            << 188
            << "the extensions leader_ext 0189 to 0190 would add pauses with an end that end for "
               "replicas that speak only the ADR too, hand-overs only leader_handover may ask for "
               "and backlog sources run only if leader_ext's owner owns them. Add them";
    QTest::newRow("up to 0189") << 189
                                << "the extension leader_ext 0190 would add hand-overs only "
                                   "leader_handover may ask for and backlog sources run only if "
                                   "leader_ext's owner owns them. Add it";
}

// A database one or two extensions behind is told what they add: the two that only make a large
// fleet cheaper were missing from the list, and the line read "would add . Add it".
void TestStatusReader::theLastExtensionsAreNamedToo()
{
    QFETCH(int, applied);
    QFETCH(QString, summary);
    leader::schema::LeaseFeatures features;
    features.leaseTable = true;
    features.notBefore = true;
    features.extension = applied;
    const QString line = qs(leader::monitor::extensionsSummary(features));
    QVERIFY2(line.startsWith(summary), qPrintable(line));
}

// Checked once to fail with paused_until read as a column (42703 on every poll).
void TestStatusReader::pollReadsTheAdrView()
{
    const std::unique_ptr<StatusReader> reader = open(*m_adr, Login::Monitor);
    QVERIFY(reader);
    const leader::monitor::Outcome<StatusRows> outcome = reader->poll();
    QVERIFY2(failureOf(outcome).isEmpty(), qPrintable(failureOf(outcome)));
    const StatusRows &rows = std::get<StatusRows>(outcome);
    QCOMPARE(rows.roles.size(), std::size_t(5));
    QCOMPARE(rows.features.extension, 0);
    QVERIFY(rows.observedAt.has_value());
    for (const leader::monitor::RoleRow &row : rows.roles) {
        QVERIFY(!row.pausedUntil && !row.pauseRemainingSeconds && !row.earlyTake);
        QVERIFY(row.tookOver.empty());
    }
}

// Two roles in one call through leader_pause(role, by, reason): both paused, each record saying
// that no wake NOTIFY stopped a holder; the unpause through leader_unpause(role) records no who
// and why, and says so. Checked once to fail with the earlier refusal of every write without
// 0177.
void TestStatusReader::pausesAndUnpausesThroughTheAdrFunctions()
{
    const std::unique_ptr<StatusReader> reader = open(*m_adr, Login::App);
    QVERIFY(reader);
    const auto pausedNow = reader->pause({"billing", "dunning"}, "alice@ops", "drill");
    QVERIFY2(failureOf(pausedNow).isEmpty(), qPrintable(failureOf(pausedNow)));
    const auto &records = std::get<std::vector<leader::lease::PauseRecord>>(pausedNow);
    QCOMPARE(records.size(), std::size_t(2));
    for (const leader::lease::PauseRecord &record : records) {
        QVERIFY(record.byThisCall);
        QVERIFY(!record.notified);
        QCOMPARE(qs(record.pausedBy), QStringLiteral("alice@ops"));
        QVERIFY(!record.until);
    }
    QCOMPARE(paused(*reader), (QStringList{"billing", "dunning"}));

    const auto again = reader->pause({"billing"}, "bob@ops", "again");
    QVERIFY2(failureOf(again).isEmpty(), qPrintable(failureOf(again)));
    const auto &kept = std::get<std::vector<leader::lease::PauseRecord>>(again).front();
    QVERIFY(!kept.byThisCall && !kept.notified);
    QCOMPARE(qs(kept.pausedBy), QStringLiteral("alice@ops"));

    const auto unpaused = reader->unpause({"billing", "dunning", "email_outbox"}, "bob", "done");
    QVERIFY2(failureOf(unpaused).isEmpty(), qPrintable(failureOf(unpaused)));
    const auto &changes = std::get<std::vector<leader::lease::UnpauseRecord>>(unpaused);
    QCOMPARE(changes.size(), std::size_t(3));
    QVERIFY(changes[0].wasPaused && changes[1].wasPaused && !changes[2].wasPaused);
    for (const leader::lease::UnpauseRecord &change : changes)
        QVERIFY(!change.attributed && !change.notified);
    QCOMPARE(paused(*reader), QStringList());
}

// All or nothing through the ADR's functions: the role the database refuses rolls back the one
// paused before it. Checked once to fail with lease::pauseRoles's ADR path outside its transaction
// (email_outbox stayed paused).
void TestStatusReader::aRefusedRolePausesNone()
{
    const std::unique_ptr<StatusReader> reader = open(*m_adr, Login::App);
    QVERIFY(reader);
    const auto refused = reader->pause({"email_outbox", "accounting"}, "alice@ops", "drill");
    const Failure *failure = std::get_if<Failure>(&refused);
    QVERIFY(failure);
    QCOMPARE(qs(failure->sqlstate), QStringLiteral("22023"));
    QVERIFY(!failure->sessionLost);
    QCOMPARE(paused(*reader), QStringList());
}

// A pause with an end is refused before anything is sent, in one line naming 0177. Checked once
// to fail without the refusal in lease::pauseRoles (the ADR's leader_pause paused both roles,
// without an end).
void TestStatusReader::anEndNeedsThePauseLog()
{
    const std::unique_ptr<StatusReader> reader = open(*m_adr, Login::App);
    QVERIFY(reader);
    const auto refused = reader->pause({"webhook_outbox", "webhook_delivery"}, "alice@ops",
                                       "deploy", {.after = "1 hour", .at = {}});
    QVERIFY2(failureOf(refused).startsWith(
                     "a pause that ends by itself needs the extension leader_ext 0177")
                     && !failureOf(refused).contains(u'\n'),
             qPrintable(failureOf(refused)));
    QCOMPARE(paused(*reader), QStringList());
}

// The fleet view and the History view: not a failure, one line each saying what they need.
// Checked once to fail without it (the History read failed with 42P01, the registry had no line).
void TestStatusReader::registryAndHistorySayWhatTheyNeed()
{
    const std::unique_ptr<StatusReader> reader = open(*m_adr, Login::Monitor);
    QVERIFY(reader);
    const auto listed = reader->replicas();
    QVERIFY2(failureOf(listed).isEmpty(), qPrintable(failureOf(listed)));
    const auto &registry = std::get<leader::monitor::ReplicaList>(listed);
    QVERIFY(!registry.available);
    QVERIFY2(qs(registry.unavailable)
                     .startsWith("the replica registry needs the extension leader_ext 0178"),
             registry.unavailable.c_str());

    leader::monitor::PauseLogReader history(m_adr->url(Login::Monitor), m_stop.get_token(), 5s);
    const auto log = history.read({});
    QVERIFY2(failureOf(log).isEmpty(), qPrintable(failureOf(log)));
    const auto &entries = std::get<leader::monitor::PauseLog>(log);
    QVERIFY(entries.entries.empty());
    QVERIFY2(qs(entries.unavailable)
                     .startsWith("the pause history needs the extension leader_ext 0177"),
             entries.unavailable.c_str());
}

// With every extension the same calls go through leader_ext's functions: the wake stops a holder
// at once, who and why are recorded, no line is due. Checked once to fail with notified left
// false (the records said "at the next heartbeat" with 0176 in place).
void TestStatusReader::everyExtensionWakesAndRecords()
{
    StatusReader reader(m_full->url(Login::App), m_stop.get_token(), 5s);
    const leader::monitor::Outcome<Access> opened = reader.open();
    QVERIFY2(failureOf(opened).isEmpty(), qPrintable(failureOf(opened)));
    QVERIFY(std::get<Access>(opened).features.complete());
    QVERIFY(std::get<Access>(opened).schemaWarning.empty());
    QVERIFY(std::get<Access>(opened).canPause);
    const auto pausedNow
            = reader.pause({"billing"}, "alice@ops", "deploy", {.after = "1 hour", .at = {}});
    QVERIFY2(failureOf(pausedNow).isEmpty(), qPrintable(failureOf(pausedNow)));
    const auto &record = std::get<std::vector<leader::lease::PauseRecord>>(pausedNow).front();
    QVERIFY(record.byThisCall && record.notified && record.until);
    const auto unpaused = reader.unpause({"billing"}, "bob", "done");
    QVERIFY2(failureOf(unpaused).isEmpty(), qPrintable(failureOf(unpaused)));
    const auto &change = std::get<std::vector<leader::lease::UnpauseRecord>>(unpaused).front();
    QVERIFY(change.wasPaused && change.attributed && change.notified);
    const auto listed = reader.replicas();
    QVERIFY2(failureOf(listed).isEmpty(), qPrintable(failureOf(listed)));
    QVERIFY(std::get<leader::monitor::ReplicaList>(listed).available);
}

QTEST_GUILESS_MAIN(TestStatusReader)
#include "tst_statusreader.moc"
