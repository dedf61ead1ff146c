// HolderChangeTracker: handover, takeover, pause or unknown, from what leader_status rows prove.
// First on synthetic polls (one row per rule, and the rows where missed polls leave it unknown),
// then on real rows: two holders ticking through the lease statements and polled by a real
// StatusPoller (straight to Postgres and through PgBouncer, as LEADER_TEST_VIA says), a holder
// that stops renewing mid-tick and is taken over once its lease expires, and the same on a
// database with ADR-114's schema alone, through the ADR's own statements.

#include "core/connectionprofile.h"
#include "core/holderchange.h"
#include "core/statuspoller.h"
#include "lease/constants.h"
#include "lease/statements.h"
#include "models/statusdiff.h"
#include "schema/migrations.h"
#include "testdatabase.h"

#include <QStandardPaths>
#include <QtTest>

#include <memory>
#include <optional>

using leader::console::ConnectionProfile;
using leader::console::HolderChange;
using leader::console::HolderChangeKind;
using leader::console::HolderChangeTracker;
using leader::console::RoleState;
using leader::console::RoleStatus;
using leader::console::StatusPoller;
using leader::console::StatusSnapshot;
using leader::test::Login;
using leader::test::TestDatabase;

Q_DECLARE_METATYPE(leader::console::HolderChangeKind)

namespace {

const QDateTime Base = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
const QString A = QStringLiteral("host:1:aaaaaaaa");
const QString B = QStringLiteral("host:2:bbbbbbbb");
const QString C = QStringLiteral("host:3:cccccccc");

QDateTime at(double seconds)
{
    return Base.addMSecs(qint64(seconds * 1000));
}

// One poll of billing, times in seconds after Base; a negative time is none.
struct Poll
{
    double at = 0;
    QString holder; // empty: nobody holds it
    qint64 token = 0;
    double acquiredAt = -1;
    double expiresIn = 9.0;
    QString lastTickHolder;
    double lastTickEndedAt = -1;
    RoleState state = RoleState::Free; // when nobody holds it
    double notBefore = -1;
    QString tookOver; // leader_status.took_over (migration 0179)
};

StatusSnapshot snapshotOf(const Poll &poll)
{
    RoleStatus s;
    s.role = QStringLiteral("billing");
    s.state = poll.holder.isEmpty() ? poll.state : RoleState::Led;
    s.holderId = poll.holder;
    s.token = poll.token;
    if (!poll.holder.isEmpty()) {
        s.acquiredAt = at(poll.acquiredAt);
        s.expiresInSeconds = poll.expiresIn;
    }
    s.lastTickHolder = poll.lastTickHolder;
    if (poll.lastTickEndedAt >= 0)
        s.lastTickEndedAt = at(poll.lastTickEndedAt);
    if (poll.state == RoleState::Paused) {
        s.pausedAt = at(poll.at - 0.1);
        s.pausedBy = QStringLiteral("alice");
        s.pauseReason = QStringLiteral("test");
    }
    if (poll.notBefore >= 0)
        s.notBefore = at(poll.notBefore);
    s.tookOver = leader::console::parseTookOver(poll.tookOver);
    StatusSnapshot snapshot;
    snapshot.databaseTime = at(poll.at);
    snapshot.receivedAt = snapshot.databaseTime;
    snapshot.roles = {s};
    return snapshot;
}

QList<HolderChange> feed(HolderChangeTracker &tracker, const QList<Poll> &polls)
{
    QList<HolderChange> changes;
    for (const Poll &poll : polls)
        changes += tracker.append(snapshotOf(poll));
    return changes;
}

} // namespace

class TstHolderChange final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void cleanupTestCase()
    {
        m_poller.reset();
        m_db.reset();
        m_adrOnly.reset();
    }

    void classify_data();
    void classify();
    void takeoverIsAFailover();
    void eventLogNamesTheKind();

    void realRows_handoversOnly();
    void realRows_releasedThenAcquiredAfterTheLeaseWouldHaveRunOut();
    void realRows_takeoverAfterExpiry();
    void adrOnlyRows_handoverThenTakeoverByExpiry();

private:
    ConnectionProfile profile() const;
    StatusSnapshot poll();
    QList<HolderChange> pollInto(HolderChangeTracker &tracker, StatusSnapshot *out = nullptr);

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<StatusPoller> m_poller;
    std::optional<StatusSnapshot> m_last;
    std::unique_ptr<TestDatabase> m_adrOnly; // ADR-114's 0174 and 0175, nothing else
};

void TstHolderChange::classify_data()
{
    QTest::addColumn<QList<Poll>>("polls");
    QTest::addColumn<int>("changes");
    QTest::addColumn<HolderChangeKind>("kind");
    QTest::addColumn<QString>("previous");
    QTest::addColumn<double>("gap");           // < 0: none
    QTest::addColumn<double>("lastHeartbeat"); // < 0: none

    // A seen at 1 s with 9 s left: its lease runs out at 10 s unless renewed.
    QTest::newRow("completed, next holder before expiry: handover")
            << QList<Poll>{{1.0, A, 7, 0.5}, {2.0, B, 8, 1.75, 9.0, A, 1.25}} << 1
            << HolderChangeKind::Handover << A << 0.5 << -1.0;
    // A shutdown's release stamps nothing; only the early acquisition proves the release.
    QTest::newRow("released uncompleted, next holder before expiry: handover")
            << QList<Poll>{{1.0, A, 7, 0.5}, {3.0, B, 8, 2.5}} << 1 << HolderChangeKind::Handover
            << A << -1.0 << -1.0;
    // A last seen at 4 s with 8 s left: its last heartbeat was at 2 s, its lease ran out at 12 s.
    QTest::newRow("expired, polled throughout: takeover")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {4.0, A, 7, 0.5, 8.0},
                           {8.0, {}},
                           {12.2, {}},
                           {13.0, B, 8, 12.5}}
            << 1 << HolderChangeKind::Takeover << A << 10.5 << 2.0;
    // A long interval: B may only acquire well after A's lease would have run out. The
    // completion proves the release, and polls every 3 s prove nothing expired since.
    QTest::newRow("completed, next holder after the lease's end: handover")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0, {}, 0, -1, 0, A, 1.5},
                           {5.0, {}, 0, -1, 0, A, 1.5},
                           {8.0, {}, 0, -1, 0, A, 1.5},
                           {11.0, {}, 0, -1, 0, A, 1.5},
                           {12.0, B, 8, 11.6, 9.0, A, 1.5}}
            << 1 << HolderChangeKind::Handover << A << 10.1 << -1.0;
    QTest::newRow("a tick nobody polled completed in between: handover from its holder")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0, {}, 0, -1, 0, A, 1.5},
                           {12.0, B, 9, 11.9, 9.0, C, 11.0}}
            << 1 << HolderChangeKind::Handover << C << 0.9 << -1.0;
    QTest::newRow("a failed tick's cooldown: released, handover")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0, {}, 0, -1, 0, {}, -1, RoleState::Cooling, 12.0},
                           {6.0, {}, 0, -1, 0, {}, -1, RoleState::Cooling, 12.0},
                           {10.0, {}, 0, -1, 0, {}, -1, RoleState::Cooling, 12.0},
                           {12.5, B, 8, 12.2, 9.0, {}, -1, RoleState::Led, 12.0}}
            << 1 << HolderChangeKind::Handover << A << -1.0 << -1.0;
    // A seen at 1 s with 9 s left (last heartbeat at 0 s); B acquired at 1.6 s, before A's lease
    // ran out, and the row says why: A's session had ended. Checked: without the took_over test
    // in HolderChangeTracker::classify this row reads as a handover and fails.
    QTest::newRow("the previous holder died, taken before its expiry: takeover")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0, B, 8, 1.6, 9.0, {}, -1, RoleState::Led, -1, "session_ended"}}
            << 1 << HolderChangeKind::Takeover << A << 1.6 << 0.0;
    QTest::newRow("a pause in between")
            << QList<Poll>{{1.0, A, 7, 0.5},
                           {2.0, {}, 0, -1, 0, {}, -1, RoleState::Paused},
                           {30.0, B, 8, 29.5}}
            << 1 << HolderChangeKind::Pause << A << -1.0 << -1.0;
    // Polls 24 s apart: a lease may have run out unseen, so neither is claimed.
    QTest::newRow("no completion, polls a lease apart: unknown")
            << QList<Poll>{{1.0, A, 7, 0.5}, {25.0, B, 8, 24.0}} << 1 << HolderChangeKind::Unknown
            << A << -1.0 << -1.0;
    QTest::newRow("completed, then polls a lease apart: unknown")
            << QList<Poll>{{1.0, A, 7, 0.5}, {30.0, B, 8, 29.0, 9.0, A, 1.5}} << 1
            << HolderChangeKind::Unknown << A << -1.0 << -1.0;
    QTest::newRow("same holder, next token: no change")
            << QList<Poll>{{1.0, A, 7, 0.5}, {2.0, {}, 0, -1, 0, A, 1.5}, {4.0, A, 8, 3.5}} << 0
            << HolderChangeKind::Unknown << QString() << -1.0 << -1.0;
    QTest::newRow("first holder seen: no change")
            << QList<Poll>{{1.0, {}}, {2.0, A, 7, 1.5}} << 0 << HolderChangeKind::Unknown
            << QString() << -1.0 << -1.0;
}

void TstHolderChange::classify()
{
    QFETCH(QList<Poll>, polls);
    QFETCH(int, changes);
    QFETCH(HolderChangeKind, kind);
    QFETCH(QString, previous);
    QFETCH(double, gap);
    QFETCH(double, lastHeartbeat);

    HolderChangeTracker tracker;
    const QList<HolderChange> found = feed(tracker, polls);
    QCOMPARE(found.size(), changes);
    if (changes == 0)
        return;
    const HolderChange &change = found.constFirst();
    QVERIFY2(change.kind == kind, qPrintable(change.reason));
    QCOMPARE(change.role, QStringLiteral("billing"));
    QCOMPARE(change.previousHolder, previous);
    QCOMPARE(change.newHolder, polls.constLast().holder);
    QCOMPARE(change.newToken, polls.constLast().token);
    QCOMPARE(change.acquiredAt, at(polls.constLast().acquiredAt));
    QVERIFY(!change.reason.isEmpty());
    if (gap < 0) {
        QVERIFY(!change.gapSeconds);
    } else {
        QVERIFY(change.gapSeconds);
        QCOMPARE(*change.gapSeconds, gap);
    }
    if (lastHeartbeat < 0)
        QVERIFY(!change.lastHeartbeatAt.isValid());
    else
        QCOMPARE(change.lastHeartbeatAt, at(lastHeartbeat));

    // The same polls again after clear() classify the same way; stale polls are ignored.
    tracker.clear();
    QCOMPARE(feed(tracker, polls), found);
    QVERIFY(tracker.append(snapshotOf(polls.constFirst())).isEmpty());
}

void TstHolderChange::takeoverIsAFailover()
{
    HolderChangeTracker tracker;
    const QList<HolderChange> changes = feed(
            tracker, {{1.0, A, 7, 0.5}, {4.0, A, 7, 0.5, 8.0}, {8.0, {}}, {13.0, B, 8, 12.5}});
    QCOMPARE(changes.size(), 1);
    const std::optional<leader::console::Failover> failover
            = leader::console::takeoverFrom(changes.first());
    QVERIFY(failover);
    QCOMPARE(failover->role, QStringLiteral("billing"));
    QCOMPARE(failover->fault, QStringLiteral("expiry (database)"));
    QCOMPARE(failover->victimHolder, A);
    QCOMPARE(failover->victimToken, 7);
    QCOMPARE(failover->successorHolder, B);
    QCOMPARE(failover->successorToken, 8);
    QCOMPARE(failover->lastHeartbeatAt, at(2.0));
    QCOMPARE(failover->acquiredAt, at(12.5));
    QCOMPARE(failover->gapSeconds, 10.5);

    HolderChange handover = changes.first();
    handover.kind = HolderChangeKind::Handover;
    QVERIFY(!leader::console::takeoverFrom(handover));

    // Taken at the holder's death, before its lease ran out: not an expiry.
    tracker.clear();
    const QList<HolderChange> died = feed(
            tracker,
            {{1.0, A, 7, 0.5},
             {2.0, B, 8, 1.6, 9.0, {}, -1, RoleState::Led, -1, QStringLiteral("session_ended")}});
    QCOMPARE(died.size(), 1);
    const std::optional<leader::console::Failover> death
            = leader::console::takeoverFrom(died.first());
    QVERIFY(death);
    QCOMPARE(death->fault, QStringLiteral("holder died (database)"));
    QCOMPARE(death->gapSeconds, 1.6);
}

void TstHolderChange::eventLogNamesTheKind()
{
    const QList<Poll> takeover{{1.0, A, 7, 0.5}, {4.0, A, 7, 0.5, 8.0}, {13.0, B, 8, 12.5}};
    const QList<Poll> handover{{1.0, A, 7, 0.5}, {2.0, B, 8, 1.75, 9.0, A, 1.25}};
    for (const auto &[polls, event, detail] :
         {std::tuple{takeover, QStringLiteral("takeover"),
                     QStringLiteral("host:1:aaaaaaaa -> host:2:bbbbbbbb, gap 10.5 s from the "
                                    "last heartbeat")},
          std::tuple{handover, QStringLiteral("rotation"),
                     QStringLiteral("host:1:aaaaaaaa -> host:2:bbbbbbbb, 0.5 s after the "
                                    "release")}}) {
        HolderChangeTracker tracker;
        feed(tracker, polls.mid(0, polls.size() - 1));
        const StatusSnapshot before = snapshotOf(polls.at(polls.size() - 2));
        const StatusSnapshot after = snapshotOf(polls.constLast());
        const auto entries
                = leader::console::changesBetween(before, after, nullptr, tracker.append(after));
        QCOMPARE(entries.size(), 1);
        QCOMPARE(leader::console::eventKindName(entries.first().event), event);
        QVERIFY2(entries.first().detail.startsWith(detail), qPrintable(entries.first().detail));
        // Without a classification a new holder is only "acquired": never called a takeover.
        const auto unclassified = leader::console::changesBetween(before, after);
        QCOMPARE(unclassified.size(), 1);
        QCOMPARE(unclassified.first().event, leader::console::EventKind::Acquired);
    }
}

// ---- Real rows --------------------------------------------------------------------------------

ConnectionProfile TstHolderChange::profile() const
{
    QString error;
    return *ConnectionProfile::fromUrl(QString::fromStdString(m_db->url(Login::Monitor)), &error);
}

StatusSnapshot TstHolderChange::poll()
{
    if (!m_db) {
        m_db = std::make_unique<TestDatabase>("holderchange");
        m_db->migrateLease();
    }
    if (!m_poller) {
        m_poller = std::make_unique<StatusPoller>();
        connect(m_poller.get(), &StatusPoller::snapshot, this,
                [this](const StatusSnapshot &snapshot) { m_last = snapshot; });
        m_poller->setTarget(profile());
    }
    m_last.reset();
    m_poller->pollNow(); // synchronous in this thread
    if (!m_last)
        qFatal("the poll returned no snapshot");
    return *m_last;
}

QList<HolderChange> TstHolderChange::pollInto(HolderChangeTracker &tracker, StatusSnapshot *out)
{
    const StatusSnapshot snapshot = poll();
    if (out)
        *out = snapshot;
    QList<HolderChange> changes = tracker.append(snapshot);
    changes.removeIf([](const HolderChange &change) { return change.role != "billing"; });
    return changes;
}

namespace {

using namespace std::chrono_literals;
namespace lease = leader::lease;

struct Holder
{
    std::string id;
    std::int64_t token = 0;
};

bool acquire(leader::pg::Connection &connection, Holder &holder)
{
    const auto acquired = lease::acquire(connection, "billing", holder.id, 0ms);
    if (acquired)
        holder.token = acquired->token;
    return acquired.has_value();
}

void release(leader::pg::Connection &connection, const Holder &holder)
{
    QVERIFY(lease::release(connection, {.role = "billing",
                                        .token = holder.token,
                                        .holderId = holder.id,
                                        .outcome = lease::Outcome::Completed}));
}

} // namespace

// Ticks alternate between two holders, each released as completed and the next acquired at
// once, polled while held: every change is a handover. Mutation-checked: with the rule "acquired
// before the previous lease would have run out" and the completion rule both removed from
// HolderChangeTracker::classify, every change here reads as a takeover and this test fails.
void TstHolderChange::realRows_handoversOnly()
{
    poll();
    m_db->resetLeases();
    auto connection = m_db->connect(Login::App);
    HolderChangeTracker tracker;
    Holder holders[] = {{"test:1:aaaaaaaa"}, {"test:2:bbbbbbbb"}};
    QList<HolderChange> changes;
    for (int tick = 0; tick < 6; ++tick) {
        Holder &holder = holders[tick % 2];
        QVERIFY(acquire(connection, holder));
        changes += pollInto(tracker);
        release(connection, holder);
    }
    QCOMPARE(changes.size(), 5);
    for (const HolderChange &change : std::as_const(changes)) {
        QVERIFY2(change.kind == HolderChangeKind::Handover, qPrintable(change.reason));
        QVERIFY(change.releasedAt.isValid());
        QVERIFY(change.releasedAt <= change.acquiredAt);
        QVERIFY(!leader::console::takeoverFrom(change));
    }
}

// A completed tick, then nobody for longer than a lease, polled every half second, then the
// other holder: the completion proves the release although the acquisition came after the lease
// would have run out. Mutation-checked: without the completion rule in
// HolderChangeTracker::classify this reads as a takeover and the test fails.
void TstHolderChange::realRows_releasedThenAcquiredAfterTheLeaseWouldHaveRunOut()
{
    poll();
    m_db->resetLeases();
    auto connection = m_db->connect(Login::App);
    HolderChangeTracker tracker;
    Holder a{"test:1:aaaaaaaa"};
    Holder b{"test:2:bbbbbbbb"};
    QVERIFY(acquire(connection, a));
    StatusSnapshot held;
    QVERIFY(pollInto(tracker, &held).isEmpty());
    const QDateTime expiry
            = held.databaseTime.addMSecs(qint64(*held.roles.constFirst().expiresInSeconds * 1000));
    release(connection, a);
    // The console's poll cadence, until the database clock is past A's lease.
    StatusSnapshot quiet;
    do {
        QTest::qWait(500);
        QVERIFY(pollInto(tracker, &quiet).isEmpty());
    } while (quiet.databaseTime <= expiry);
    QVERIFY(acquire(connection, b));
    const QList<HolderChange> changes = pollInto(tracker);
    QCOMPARE(changes.size(), 1);
    QVERIFY2(changes.first().kind == HolderChangeKind::Handover,
             qPrintable(changes.first().reason));
    QCOMPARE(changes.first().previousHolder, QString::fromStdString(a.id));
    QVERIFY(changes.first().acquiredAt > expiry);
    QVERIFY(*changes.first().gapSeconds > 9.0);
}

// A holder renews twice and then stops, as a killed process would, mid-tick; the other holder
// tries to acquire every half second as a contender polls, and the console polls as often. The
// change is a takeover whose last heartbeat is the victim's last RENEW (its now() on the
// database clock) and whose gap is the successor's acquired_at minus that: at least the TTL,
// at most the TTL plus the contender's and the poll's cadence.
void TstHolderChange::realRows_takeoverAfterExpiry()
{
    poll();
    m_db->resetLeases();
    auto connection = m_db->connect(Login::App);
    HolderChangeTracker tracker;
    Holder victim{"test:1:aaaaaaaa"};
    Holder successor{"test:2:bbbbbbbb"};
    QVERIFY(acquire(connection, victim));
    QVERIFY(pollInto(tracker).isEmpty());
    lease::DatabaseNow lastRenew;
    for (int beat = 0; beat < 2; ++beat) {
        QTest::qWait(300);
        const auto renewed = lease::renew(connection, "billing", victim.token, victim.id);
        QVERIFY(renewed);
        lastRenew = renewed->now;
        QVERIFY(pollInto(tracker).isEmpty());
    }
    QList<HolderChange> changes;
    StatusSnapshot snapshot;
    QDeadlineTimer deadline(30s);
    while (!deadline.hasExpired()) {
        QTest::qWait(500); // the contender's and the console's cadence
        const bool acquired = acquire(connection, successor);
        changes += pollInto(tracker, &snapshot);
        if (acquired)
            break;
    }
    QCOMPARE(changes.size(), 1);
    const HolderChange &change = changes.first();
    QVERIFY2(change.kind == HolderChangeKind::Takeover, qPrintable(change.reason));
    QCOMPARE(change.previousHolder, QString::fromStdString(victim.id));
    QCOMPARE(change.previousToken, victim.token);
    QCOMPARE(change.newToken, successor.token);
    QCOMPARE(change.acquiredAt, snapshot.roles.constFirst().acquiredAt);
    // expires_in_seconds is rounded to the millisecond.
    const qint64 heartbeatMs = qint64(lastRenew.epochSeconds * 1000.0);
    QVERIFY2(std::abs(change.lastHeartbeatAt.toMSecsSinceEpoch() - heartbeatMs) <= 2,
             qPrintable(change.lastHeartbeatAt.toString(Qt::ISODateWithMs)));
    const double gap = *change.gapSeconds;
    QCOMPARE(gap, change.lastHeartbeatAt.msecsTo(change.acquiredAt) / 1000.0);
    const double ttl = std::chrono::duration<double>(lease::LeaseTTL).count();
    QVERIFY2(gap >= ttl && gap <= ttl + 2.0, qPrintable(QString::number(gap)));
    const auto failover = leader::console::takeoverFrom(change);
    QVERIFY(failover);
    QCOMPARE(failover->gapSeconds, gap);
}

namespace {

// The ADR's own statements, as the application issues them on its schema alone (no extension,
// so no took_over for the console to read): ACQUIRE, RENEW and a completed RELEASE of billing.
constexpr auto AdrAcquire
        = "INSERT INTO leader_leases (role, holder_token, holder_id, acquired_at, expires_at)"
          " VALUES ('billing', 0, $1, now(), now() + interval '10 seconds')"
          " ON CONFLICT (role) DO UPDATE SET holder_token = leader_leases.holder_token + 1,"
          " holder_id = EXCLUDED.holder_id, acquired_at = now(),"
          " expires_at = now() + interval '10 seconds'"
          " WHERE leader_leases.paused_at IS NULL"
          " AND (leader_leases.expires_at IS NULL OR leader_leases.expires_at <= now())"
          " RETURNING holder_token";
constexpr auto AdrRenew = "UPDATE leader_leases SET expires_at = now() + interval '10 seconds'"
                          " WHERE role = 'billing' AND holder_token = $1 AND holder_id IS NOT NULL"
                          " RETURNING extract(epoch FROM now())::float8";
constexpr auto AdrRelease
        = "UPDATE leader_leases SET holder_id = NULL, acquired_at = NULL, expires_at = NULL,"
          " last_tick_ended_at = now(), last_tick_holder = $2"
          " WHERE role = 'billing' AND holder_token = $1 AND holder_id = $2 RETURNING 1";

bool adrAcquire(leader::pg::Connection &connection, Holder &holder)
{
    const leader::pg::Result acquired
            = connection.exec("acquire", AdrAcquire, {holder.id}, std::chrono::seconds(5));
    if (acquired.rows() == 1)
        holder.token = acquired.toInt64(0, 0);
    return acquired.rows() == 1;
}

} // namespace

// On a database with the ADR's 0174 and 0175 only, the rows carry no took_over: a new holder
// before the old lease's expiry is a hand-over, one after it (the old holder stopped renewing) a
// takeover at expiry, said as such, with no claim of a death the rows cannot show. Checked to
// fail with an empty took_over read as a session that ended.
void TstHolderChange::adrOnlyRows_handoverThenTakeoverByExpiry()
{
    m_adrOnly = std::make_unique<TestDatabase>("holderchange_adr");
    {
        leader::pg::Connection owner = m_adrOnly->connectDirect(Login::Owner);
        for (const auto &migration : leader::schema::embeddedMigrations()) {
            if (migration.set == leader::schema::MigrationSet::Adr)
                owner.execScript("apply", migration.up, 60s);
        }
    }
    StatusPoller poller;
    std::optional<StatusSnapshot> last;
    connect(&poller, &StatusPoller::snapshot, this,
            [&last](const StatusSnapshot &snapshot) { last = snapshot; });
    QString error;
    poller.setTarget(*ConnectionProfile::fromUrl(
            QString::fromStdString(m_adrOnly->url(Login::Monitor)), &error));
    HolderChangeTracker tracker;
    const auto pollChanges = [&](StatusSnapshot *out = nullptr) {
        last.reset();
        poller.pollNow(); // synchronous in this thread
        if (!last)
            qFatal("the poll returned no snapshot");
        if (out)
            *out = *last;
        QList<HolderChange> changes = tracker.append(*last);
        changes.removeIf([](const HolderChange &change) { return change.role != "billing"; });
        return changes;
    };
    QVERIFY(pollChanges().isEmpty());

    auto connection = m_adrOnly->connect(Login::App);
    Holder a{"adr:1:aaaaaaaa"};
    Holder b{"adr:2:bbbbbbbb"};
    QVERIFY(adrAcquire(connection, a));
    QVERIFY(pollChanges().isEmpty());
    QCOMPARE(connection.exec("release", AdrRelease, {a.token, a.id}, 5s).rows(), 1);
    QVERIFY(adrAcquire(connection, b));
    StatusSnapshot snapshot;
    QList<HolderChange> changes = pollChanges(&snapshot);
    QCOMPARE(changes.size(), 1);
    QVERIFY2(changes.first().kind == HolderChangeKind::Handover,
             qPrintable(changes.first().reason));
    QCOMPARE(snapshot.roles.constFirst().tookOver, leader::console::TookOver::None);

    // B renews once and stops, as a killed process would; A contends every half second.
    const leader::pg::Result renewed = connection.exec("renew", AdrRenew, {b.token}, 5s);
    QCOMPARE(renewed.rows(), 1);
    const double lastRenew = renewed.toDouble(0, 0);
    changes.clear();
    QDeadlineTimer deadline(30s);
    while (!deadline.hasExpired()) {
        QTest::qWait(500);
        const bool acquired = adrAcquire(connection, a);
        changes += pollChanges(&snapshot);
        if (acquired)
            break;
    }
    QCOMPARE(changes.size(), 1);
    const HolderChange &change = changes.first();
    QVERIFY2(change.kind == HolderChangeKind::Takeover, qPrintable(change.reason));
    QCOMPARE(change.reason, QStringLiteral("the previous lease expired unreleased"));
    QCOMPARE(change.previousHolder, QString::fromStdString(b.id));
    QCOMPARE(snapshot.roles.constFirst().tookOver, leader::console::TookOver::None);
    QVERIFY2(std::abs(change.lastHeartbeatAt.toMSecsSinceEpoch() - qint64(lastRenew * 1000)) <= 2,
             qPrintable(change.lastHeartbeatAt.toString(Qt::ISODateWithMs)));
    const auto failover = leader::console::takeoverFrom(change);
    QVERIFY(failover);
    QCOMPARE(failover->fault, QStringLiteral("expiry (database)"));
}

QTEST_MAIN(TstHolderChange)

#include "tst_holderchange.moc"
