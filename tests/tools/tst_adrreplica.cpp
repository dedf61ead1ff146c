// The reference replica of tests/fixtures/adr-replica: ADR-114's statements as the ADR prints
// them, written in Go from the ADR alone, run as a process against this repository's schema with
// every extension applied (migrateDemo), straight to Postgres and through PgBouncer in transaction
// mode. It logs in as the App login, which holds hardcount_app only: the ADR's grants (and 0174's
// INSERT on ACQUIRE's columns) are all a product replica has. What it must show: a tick acquires,
// claims under the fence, renews past 3 s and releases completed, stamping the completion; tokens
// grow; a pause mid-tick is a definitive loss at the next RENEW and its RELEASE touches nothing;
// SIGTERM and SIGINT release the running tick as interrupted; bad input is one line and an exit
// code, never a password.

#include "eventprocess.h"
#include "loopbackport.h"
#include "pg/connection.h"
#include "testdatabase.h"
#include "toolprocess.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <csignal>
#include <memory>
#include <optional>

#include <signal.h>

using namespace std::chrono_literals;
using leader::test::EventProcess;
using leader::test::Login;
using leader::test::TestDatabase;

using leader::test::qs;

namespace {

constexpr int ProcessDeadlineMs = 30'000;
// A password no server knows, so any trace of it in the output is an echo of the URL.
const QString WrongPassword = QStringLiteral("s3cr3t-xyz");

const QRegularExpression Timestamp(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)");
const QRegularExpression DatabaseTime(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$)");
const QRegularExpression HolderId(R"(^[^:]+:\d+:[0-9a-f]{8}$)");

// The reference replica under test, as this build made it.
const QString AdrReplicaPath = QStringLiteral(ADR_REPLICA_PATH);

qint64 tokenOf(const QJsonObject &event)
{
    return event.value("token").toInteger();
}

double epochOf(const QJsonObject &event)
{
    return event.value("db_epoch").toDouble();
}

// Two readings of one database instant: the event's db_epoch and a column's epoch. Microseconds
// at 1.8e9 s are within a double's precision; half a microsecond apart is the same instant.
bool sameInstant(double a, double b)
{
    return qAbs(a - b) < 5e-7;
}

// An epoch as a statement parameter (to_timestamp($n)), to the microsecond.
std::string epochParam(double epoch)
{
    return QString::number(epoch, 'f', 6).toStdString();
}

// The events of one tick.
QList<QJsonObject> ofToken(const QList<QJsonObject> &events, qint64 token)
{
    QList<QJsonObject> found;
    for (const QJsonObject &event : events) {
        if (tokenOf(event) == token)
            found << event;
    }
    return found;
}

} // namespace

class TestAdrReplica final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();

    void leadsClaimsRenewsAndReleases_data();
    void leadsClaimsRenewsAndReleases();
    void pauseMidTickIsALossAndTheReleaseTouchesNothing_data();
    void pauseMidTickIsALossAndTheReleaseTouchesNothing();
    void signalMidTickReleasesInterrupted_data();
    void signalMidTickReleasesInterrupted();
    void badInput_data();
    void badInput();

private:
    QString url(Login login) const { return qs(m_db->url(login)); }
    // One value as text, read as the owner; empty for NULL.
    QString field(const std::string &sql, std::initializer_list<leader::pg::Param> params = {});
    double epochField(const std::string &sql, std::initializer_list<leader::pg::Param> params = {});
    // The App login's connection: pause and unpause as a product replica's role may.
    leader::pg::Connection &app() { return *m_app; }
    // Every line so far is a JSON object with the fields every event has; fails the test if not.
    void verifyEventLines(EventProcess &replica, const QString &id, const QString &holder);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<leader::pg::Connection> m_owner;
    std::unique_ptr<leader::pg::Connection> m_app;
    leader::test::LoopbackPort m_refusingPort{leader::test::LoopbackPort::Behaviour::Refuse};
};

void TestAdrReplica::initTestCase()
{
    QVERIFY2(QFileInfo(QStringLiteral(ADR_REPLICA_PATH)).isExecutable(), ADR_REPLICA_PATH);
    m_db = std::make_unique<TestDatabase>("adrreplica");
    // Every extension and the demo domain (claim_log, fence_refusals): the ADR's statements must
    // run unchanged beside all of it.
    m_db->migrateDemo();
    m_owner = std::make_unique<leader::pg::Connection>(m_db->connect(Login::Owner));
    m_app = std::make_unique<leader::pg::Connection>(m_db->connect(Login::App));
}

void TestAdrReplica::init()
{
    m_db->resetLeases();
    m_db->resetDemo();
}

QString TestAdrReplica::field(const std::string &sql,
                              std::initializer_list<leader::pg::Param> params)
{
    const leader::pg::Result result = m_owner->exec("inspect", sql, params, 5s);
    return result.isNull(0, 0) ? QString() : qs(result.text(0, 0));
}

double TestAdrReplica::epochField(const std::string &sql,
                                  std::initializer_list<leader::pg::Param> params)
{
    return m_owner->exec("inspect", sql, params, 5s).toDouble(0, 0);
}

void TestAdrReplica::verifyEventLines(EventProcess &replica, const QString &id,
                                      const QString &holder)
{
    const QStringList lines = replica.lines();
    QVERIFY(!lines.isEmpty());
    for (const QString &line : lines) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError && document.isObject(), qPrintable(line));
        const QJsonObject event = document.object();
        QVERIFY2(Timestamp.match(event.value("ts").toString()).hasMatch(), qPrintable(line));
        QCOMPARE(event.value("replica").toString(), id);
        QCOMPARE(event.value("holder").toString(), holder);
        QCOMPARE(event.value("kind").toString(), QStringLiteral("adr"));
        QVERIFY2(!event.value("event").toString().isEmpty(), qPrintable(line));
        if (event.contains("role")) // a tick's event
            QVERIFY2(event.value("token").isDouble(), qPrintable(line));
        if (event.contains("db_time")) {
            const QString text = event.value("db_time").toString();
            QVERIFY2(DatabaseTime.match(text).hasMatch(), qPrintable(line));
            // The same instant as db_epoch, to the millisecond Qt parses.
            const QDateTime at = QDateTime::fromString(text, Qt::ISODateWithMs);
            QVERIFY2(at.isValid(), qPrintable(line));
            QVERIFY2(qAbs(at.toMSecsSinceEpoch() - epochOf(event) * 1000) < 1.0, qPrintable(line));
        }
    }
}

void TestAdrReplica::leadsClaimsRenewsAndReleases_data()
{
    QTest::addColumn<bool>("claimTable");
    QTest::newRow("SELECT leader_fence") << false;
    QTest::newRow("INSERT INTO claim_log") << true;
}

// (a) Ticks of 4 s, longer than the 3 s beat: each acquires, claims under the fence, renews,
// releases completed; the completion is stamped with the RELEASE's own now() and the holder; the
// next tick's token is greater.
void TestAdrReplica::leadsClaimsRenewsAndReleases()
{
    QFETCH(bool, claimTable);

    QStringList arguments{"--database",    url(Login::App), "--id",       "adr1",
                          "--roles",       "billing",       "--interval", "1s",
                          "--poll",        "250ms",         "--work",     "4s",
                          "--fence-every", "500ms"};
    if (claimTable)
        arguments << "--claim-table";
    EventProcess replica;
    replica.start(AdrReplicaPath, arguments);
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("started").has_value(), 10000);
    const QJsonObject started = *replica.find("started");
    QCOMPARE(started.value("pid").toInteger(), replica.process().processId());
    QCOMPARE(started.value("roles").toVariant().toStringList(), QStringList{"billing"});
    const QString holder = started.value("holder").toString();
    QVERIFY2(HolderId.match(holder).hasMatch(), qPrintable(holder));

    // Two completed ticks (about 10 s: 4 s of work, then the 1 s interval, twice).
    QTRY_VERIFY_WITH_TIMEOUT(replica.all("released", {{"outcome", "completed"}}).size() >= 2,
                             25000);
    replica.process().terminate();
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 0);
    QVERIFY2(replica.errors().isEmpty(), qPrintable(replica.errors()));
    verifyEventLines(replica, "adr1", holder);

    const QList<QJsonObject> acquired = replica.all("acquired", {{"role", "billing"}});
    const QList<QJsonObject> completed = replica.all("released", {{"outcome", "completed"}});
    QVERIFY(acquired.size() >= 2);
    for (qsizetype i = 1; i < acquired.size(); ++i)
        QVERIFY2(tokenOf(acquired[i]) > tokenOf(acquired[i - 1]), "tokens do not increase");

    for (int tick = 0; tick < 2; ++tick) {
        const qint64 token = tokenOf(acquired[tick]);
        const QJsonObject &released = completed[tick];
        QCOMPARE(tokenOf(released), token);
        QCOMPARE(released.value("rows").toInt(), 1);
        const double from = epochOf(acquired[tick]);
        const double to = epochOf(released);

        // Claimed under the fence, every claim accepted, within the tick on the database clock.
        const QList<QJsonObject> claims = ofToken(replica.all("claim"), token);
        QVERIFY2(claims.size() >= 4, qPrintable(QString::number(claims.size())));
        for (const QJsonObject &claim : claims) {
            QCOMPARE(claim.value("ok").toBool(), true);
            QVERIFY(epochOf(claim) > from && epochOf(claim) < to);
        }
        // Renewed while the work ran past the 3 s beat, and never lost.
        const QList<QJsonObject> renewed = ofToken(replica.all("renewed"), token);
        QVERIFY(!renewed.isEmpty());
        for (const QJsonObject &beat : renewed)
            QVERIFY(epochOf(beat) > from && epochOf(beat) < to);
        QVERIFY(ofToken(replica.all("lost"), token).isEmpty());

        if (claimTable) {
            // One claim_log row per accepted claim, each judged inside the tick, named after the
            // holder; no refusal recorded.
            QCOMPARE(field("SELECT count(*) FROM claim_log WHERE role = 'billing' AND token = $1",
                           {token})
                             .toInt(),
                     claims.size());
            QCOMPARE(field("SELECT count(*) FROM claim_log WHERE token = $1 AND item LIKE $2 "
                           "AND fenced_at > to_timestamp($3) AND fenced_at < to_timestamp($4)",
                           {token, "adr:" + holder.toStdString() + ":%", epochParam(from),
                            epochParam(to)})
                             .toInt(),
                     claims.size());
            QCOMPARE(field("SELECT count(*) FROM fence_refusals"), QStringLiteral("0"));
        }
    }
    QVERIFY(replica.all("error").isEmpty());
    QVERIFY(replica.all("renew_failed").isEmpty());

    // The last completed tick's RELEASE stamped the row with its own now() and the holder; the
    // tick the SIGTERM cut (if one ran) did not stamp it.
    const QJsonObject last = replica.all("released", {{"outcome", "completed"}}).last();
    QVERIFY(sameInstant(epochField("SELECT extract(epoch FROM last_tick_ended_at)::float8 FROM "
                                   "leader_leases WHERE role = 'billing'"),
                        epochOf(last)));
    QCOMPARE(field("SELECT last_tick_holder FROM leader_leases WHERE role = 'billing'"), holder);
    QCOMPARE(field("SELECT (holder_id IS NULL) || ',' || (not_before IS NULL) FROM leader_leases "
                   "WHERE role = 'billing'"),
             QStringLiteral("true,true"));
    QCOMPARE(replica.events().last().value("event").toString(), QStringLiteral("stopped"));
}

void TestAdrReplica::pauseMidTickIsALossAndTheReleaseTouchesNothing_data()
{
    QTest::addColumn<QString>("fenceEvery");
    QTest::addColumn<bool>("claimTable");
    // The next claim meets the false fence first; the RENEW the replica then sends at once finds
    // the row gone.
    QTest::newRow("claims refused") << QStringLiteral("200ms") << true;
    // One claim at the tick's start and no other: the heartbeat's next beat finds it.
    QTest::newRow("the beat finds it") << QStringLiteral("60s") << false;
}

// (b) leader_pause mid-tick: the fence is false from the pause's commit, the next RENEW (within
// the 3 s beat) finds 0 rows, which is a definitive loss; no claim after the pause is accepted;
// the RELEASE proves holder_id IS NOT NULL and so touches 0 rows of the paused row, which stays
// paused and unheld, with no cooldown and no completion. Unpaused, the role is led again.
// Checked: with `holder_id IS NOT NULL` deleted from the fixture's RELEASE (lease.go,
// releaseWhere), both rows fail here: the RELEASE of the lost tick matches the paused row by its
// token alone, touches it (rows 1) and gives it a cooldown (not_before).
void TestAdrReplica::pauseMidTickIsALossAndTheReleaseTouchesNothing()
{
    QFETCH(QString, fenceEvery);
    QFETCH(bool, claimTable);

    QStringList arguments{"--database",    url(Login::App), "--id",       "adr2",
                          "--roles",       "billing",       "--interval", "1s",
                          "--poll",        "250ms",         "--work",     "20s",
                          "--fence-every", fenceEvery};
    if (claimTable)
        arguments << "--claim-table";
    EventProcess replica;
    replica.start(AdrReplicaPath, arguments);
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("claim", {{"ok", true}}).has_value(), 10000);
    const QJsonObject acquired = *replica.find("acquired");
    const qint64 token = tokenOf(acquired);
    const QString holder = acquired.value("holder").toString();
    QCOMPARE(field("SELECT holder_id FROM leader_leases WHERE role = 'billing'"), holder);

    // Paused as the App login, as any replica's role may.
    QElapsedTimer sincePause;
    sincePause.start();
    const double pausedAt
            = app().exec("pause", "SELECT extract(epoch FROM leader_pause($1, $2, $3))::float8",
                         {"billing", "tst_adrreplica", "pause mid-tick"}, 5s)
                      .toDouble(0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(!ofToken(replica.all("lost"), token).isEmpty(), 5000);
    // The next RENEW after the pause: one beat (3 s) and its answer, with a margin for a busy
    // machine.
    QVERIFY2(sincePause.elapsed() < 4500, qPrintable(QString::number(sincePause.elapsed())));
    QCOMPARE(replica.find("lost")->value("reason").toString(), QStringLiteral("renew_empty"));
    // The RENEW that found the row gone was the first after the pause: none was acknowledged
    // later.
    for (const QJsonObject &beat : ofToken(replica.all("renewed"), token))
        QVERIFY(epochOf(beat) < pausedAt);
    // No claim judged after the pause was accepted.
    int refused = 0;
    for (const QJsonObject &claim : ofToken(replica.all("claim"), token)) {
        if (epochOf(claim) > pausedAt) {
            QCOMPARE(claim.value("ok").toBool(), false);
            ++refused;
        }
    }
    if (claimTable) {
        QCOMPARE(field("SELECT count(*) FROM claim_log WHERE token = $1 AND fenced_at >= "
                       "to_timestamp($2)",
                       {token, epochParam(pausedAt)}),
                 QStringLiteral("0"));
        QCOMPARE(field("SELECT count(*) FROM fence_refusals WHERE role = 'billing' AND token = $1 "
                       "AND claim = 'adr'",
                       {token})
                         .toInt(),
                 refused);
    }

    QTRY_VERIFY_WITH_TIMEOUT(!ofToken(replica.all("released"), token).isEmpty(), 5000);
    const QJsonObject released = ofToken(replica.all("released"), token).first();
    QCOMPARE(released.value("outcome").toString(), QStringLiteral("lost"));
    QCOMPARE(released.value("rows").toInt(), 0);
    QVERIFY(!released.contains("db_time")); // no row, no now()
    QCOMPARE(field("SELECT concat_ws(',', paused_at IS NOT NULL, holder_id IS NULL, holder_token, "
                   "not_before IS NULL, last_tick_ended_at IS NULL) FROM leader_leases WHERE role "
                   "= 'billing'"),
             QStringLiteral("t,t,%1,t,t").arg(token));

    // Paused, it is not taken: the replica polls every 250 ms; give it a second of the database's
    // clock, then unpause. Nothing was acquired in between.
    const double releasedSeen = epochField("SELECT extract(epoch FROM now())::float8");
    QTRY_VERIFY_WITH_TIMEOUT(field("SELECT now() > to_timestamp($1) + interval '1 second'",
                                   {epochParam(releasedSeen)})
                                     == QStringLiteral("t"),
                             5000);
    QCOMPARE(replica.all("acquired").size(), 1);
    const double unpausedAt = epochField("SELECT extract(epoch FROM clock_timestamp())::float8");
    QCOMPARE(app().exec("unpause", "SELECT leader_unpause($1)", {"billing"}, 5s).toBool(0, 0),
             true);
    QTRY_VERIFY_WITH_TIMEOUT(replica.all("acquired").size() == 2, 5000);
    const QJsonObject again = replica.all("acquired").last();
    QVERIFY(tokenOf(again) > token);
    QVERIFY(epochOf(again) > unpausedAt);
    QTRY_VERIFY_WITH_TIMEOUT(
            !ofToken(replica.all("claim", {{"ok", true}}), tokenOf(again)).isEmpty(), 5000);

    replica.process().terminate();
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    QCOMPARE(replica.process().exitCode(), 0);
    verifyEventLines(replica, "adr2", holder);
    QVERIFY(replica.all("error").isEmpty());
}

void TestAdrReplica::signalMidTickReleasesInterrupted_data()
{
    QTest::addColumn<int>("signal");
    QTest::addColumn<QString>("name");
    QTest::newRow("SIGTERM") << int(SIGTERM) << QStringLiteral("SIGTERM");
    QTest::newRow("SIGINT") << int(SIGINT) << QStringLiteral("SIGINT");
}

// (c) A signal mid-tick: the work is cancelled and the tick released at once as interrupted: the
// row is freed (rows 1) with no completion stamped and no cooldown, and the process exits 0.
void TestAdrReplica::signalMidTickReleasesInterrupted()
{
    QFETCH(int, signal);
    QFETCH(QString, name);

    EventProcess replica;
    replica.start(AdrReplicaPath,
                  {"--database", url(Login::App), "--id", "adr3", "--roles", "billing",
                   "--interval", "1s", "--poll", "250ms", "--work", "20s"});
    QTRY_VERIFY_WITH_TIMEOUT(replica.find("claim", {{"ok", true}}).has_value(), 10000);
    const QJsonObject acquired = *replica.find("acquired");
    const QString holder = acquired.value("holder").toString();
    QCOMPARE(field("SELECT holder_id FROM leader_leases WHERE role = 'billing'"), holder);

    QElapsedTimer sinceSignal;
    sinceSignal.start();
    QCOMPARE(::kill(static_cast<pid_t>(replica.process().processId()), signal), 0);
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    // Within the RELEASE's 2 s statement timeout and a beat's, whatever was in flight.
    QVERIFY2(sinceSignal.elapsed() < 4000, qPrintable(QString::number(sinceSignal.elapsed())));
    QCOMPARE(replica.process().exitStatus(), QProcess::NormalExit);
    QCOMPARE(replica.process().exitCode(), 0);
    QVERIFY2(replica.errors().isEmpty(), qPrintable(replica.errors()));
    verifyEventLines(replica, "adr3", holder);

    const QList<QJsonObject> events = replica.events();
    QVERIFY(events.size() >= 2);
    const QJsonObject released = events[events.size() - 2];
    QCOMPARE(released.value("event").toString(), QStringLiteral("released"));
    QCOMPARE(tokenOf(released), tokenOf(acquired));
    QCOMPARE(released.value("outcome").toString(), QStringLiteral("interrupted"));
    QCOMPARE(released.value("rows").toInt(), 1);
    QVERIFY(released.contains("db_epoch"));
    QCOMPARE(events.last().value("event").toString(), QStringLiteral("stopped"));
    QCOMPARE(events.last().value("signal").toString(), name);

    // Released, unstamped, no cooldown: the role is due at once.
    QCOMPARE(field("SELECT concat_ws(',', holder_id IS NULL, expires_at IS NULL, "
                   "last_tick_ended_at IS NULL, last_tick_holder IS NULL, not_before IS NULL, "
                   "holder_token) FROM leader_leases WHERE role = 'billing'"),
             QStringLiteral("t,t,t,t,t,%1").arg(tokenOf(acquired)));
}

void TestAdrReplica::badInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("stderrContains");

    const QString app = url(Login::App);
    const QString wrongPassword
            = QString(app).replace(qEnvironmentVariable("LEADER_TEST_PASSWORD"), WrongPassword);
    const QString nowhere = QStringLiteral("postgresql://lt_app:%1@127.0.0.1:%2/x")
                                    .arg(WrongPassword)
                                    .arg(m_refusingPort.port());

    QTest::newRow("wrong password") << QStringList{"--database", wrongPassword} << 4
                                    << QStringList{"cannot connect", "lt_app"};
    QTest::newRow("nothing listening") << QStringList{"--database", nowhere} << 4
                                       << QStringList{"cannot connect", "127.0.0.1"};
    QTest::newRow("not a URL")
            << QStringList{"--database", QStringLiteral("postgresql://lt_app:%1@127.0.0.1:port/x")
                                                 .arg(WrongPassword)}
            << 2 << QStringList{"--database"};
    QTest::newRow("unknown role") << QStringList{"--database", app, "--roles", "billing,payroll"}
                                  << 2 << QStringList{"--roles", "unknown role \"payroll\""};
    QTest::newRow("unknown role in --interval")
            << QStringList{"--database", app, "--interval", "payroll=1s"} << 2
            << QStringList{"--interval", "\"payroll\""};
    QTest::newRow("a bad duration") << QStringList{"--database", app, "--work", "soon"} << 2
                                    << QStringList{"--work", "\"soon\""};
    QTest::newRow("unknown option")
            << QStringList{"--database", app, "--frobnicate"} << 2 << QStringList{"frobnicate"};
    QTest::newRow("no database") << QStringList{} << 2 << QStringList{"DATABASE_URL"};
}

// (d) One line on stderr, the documented exit code, no password, no event.
void TestAdrReplica::badInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QStringList, stderrContains);

    EventProcess replica;
    replica.start(AdrReplicaPath, arguments);
    QVERIFY(replica.process().waitForFinished(ProcessDeadlineMs));
    const QString err = replica.errors();
    const QString out = QString::fromUtf8(replica.process().readAllStandardOutput());
    QVERIFY2(replica.process().exitStatus() == QProcess::NormalExit, qPrintable(err));
    QVERIFY2(replica.process().exitCode() == exitCode, qPrintable(err));
    QVERIFY2(err.startsWith("adr-replica: ") && err.endsWith('\n') && err.count('\n') == 1,
             qPrintable(err));
    for (const QString &fragment : stderrContains)
        QVERIFY2(err.contains(fragment), qPrintable(err));
    QVERIFY2(!err.contains(qEnvironmentVariable("LEADER_TEST_PASSWORD")), qPrintable(err));
    QVERIFY2(!err.contains(WrongPassword), qPrintable(err));
    QVERIFY2(out.isEmpty(), qPrintable(out)); // no "started": it never ran
}

QTEST_GUILESS_MAIN(TestAdrReplica)
#include "tst_adrreplica.moc"
