// StatusPoller against a real server, straight to Postgres and again through PgBouncer in
// transaction mode: polls from its own thread, read-only detection, pause/unpause round trips,
// the one-line failure messages (no password), reconnecting after the backend or the link dies,
// many polls beside busy pooled clients with no failure (unnamed statements only), the replica
// registry read beside the polls (unavailable, not an error, without extension 0178), and a
// database with ADR-114's 0174 and 0175 only, which reads, pauses and unpauses.

#include "core/connectionprofile.h"
#include "core/statuspoller.h"
#include "faults/linkproxy.h"
#include "loopbackport.h"
#include "monitor/statusreader.h"
#include "pg/connection.h"
#include "profilefor.h"
#include "schema/migrator.h"
#include "testdatabase.h"

#include <QDeadlineTimer>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using leader::console::ActionResult;
using leader::console::ConnectionProfile;
using leader::console::ConnectionState;
using leader::console::PauseAction;
using leader::console::pauseActionName;
using leader::console::Privileges;
using leader::console::RegistryEntry;
using leader::console::RegistrySnapshot;
using leader::console::StatusPoller;
using leader::console::StatusSnapshot;
using leader::test::Login;
using leader::test::profileFor;
using leader::test::TestDatabase;

namespace {

constexpr int Timeout = 15000;
constexpr const char *WrongPassword = "s3cr3t-xyz";

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

// What Migrator::rollbackTo(version) undoes on a database with every extension: the latest first.
std::vector<int> extensionsDownTo(int version)
{
    std::vector<int> versions;
    for (int v = leader::schema::LatestExtension; v >= version; --v)
        versions.push_back(v);
    return versions;
}

ActionResult actionAt(const QSignalSpy &spy, qsizetype index)
{
    return spy.at(index).at(0).value<ActionResult>();
}

} // namespace

// QCOMPARE prints a connection state by its name.
namespace leader::console {
char *toString(ConnectionState state)
{
    const QLatin1StringView name = connectionStateName(state);
    return qstrdup(QByteArray(name.data(), name.size()).constData());
}
} // namespace leader::console

Q_DECLARE_METATYPE(leader::test::Login)

// Re-emits the poller's signals in the test's thread, so QSignalSpy never races the poller's.
class Relay final : public QObject
{
    Q_OBJECT

public:
    explicit Relay(StatusPoller *poller)
    {
        connect(poller, &StatusPoller::snapshot, this, &Relay::snapshot);
        connect(poller, &StatusPoller::connectionChanged, this, &Relay::connectionChanged);
        connect(poller, &StatusPoller::privilegesChanged, this, &Relay::privilegesChanged);
        connect(poller, &StatusPoller::actionFinished, this, &Relay::actionFinished);
        connect(poller, &StatusPoller::pollFailed, this, &Relay::pollFailed);
        connect(poller, &StatusPoller::registryRead, this, &Relay::registryRead);
    }

Q_SIGNALS:
    void snapshot(const leader::console::StatusSnapshot &snapshot);
    void connectionChanged(leader::console::ConnectionState state, const QString &message);
    void privilegesChanged(const leader::console::Privileges &privileges);
    void actionFinished(const leader::console::ActionResult &result);
    void pollFailed(const QString &message);
    void registryRead(const leader::console::RegistrySnapshot &registry);
};

// A poller in its own thread, as the console runs it, with spies on everything it says.
class PollerHarness final
{
public:
    PollerHarness()
        : m_poller(new StatusPoller)
        , relay(m_poller)
        , snapshots(&relay, &Relay::snapshot)
        , connection(&relay, &Relay::connectionChanged)
        , privileges(&relay, &Relay::privilegesChanged)
        , actions(&relay, &Relay::actionFinished)
        , failures(&relay, &Relay::pollFailed)
        , registries(&relay, &Relay::registryRead)
    {
        m_thread.setObjectName(QStringLiteral("poller"));
        m_poller->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_poller, &QObject::deleteLater);
        m_thread.start();
    }
    ~PollerHarness()
    {
        QMetaObject::invokeMethod(m_poller, &StatusPoller::stop, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    Q_DISABLE_COPY_MOVE(PollerHarness)

    template<typename Function>
    void call(Function function)
    {
        QMetaObject::invokeMethod(
                m_poller, [poller = m_poller, function] { function(poller); },
                Qt::QueuedConnection);
    }
    void setTarget(const ConnectionProfile &profile)
    {
        call([profile](StatusPoller *poller) { poller->setTarget(profile); });
    }
    void pollNow()
    {
        call([](StatusPoller *poller) { poller->pollNow(); });
    }

    // The first connectionChanged in state from index from on, waiting for one when it is not
    // there yet.
    bool waitForState(ConnectionState state, QString *message = nullptr, int from = 0)
    {
        return waitFor([state](ConnectionState found) { return found == state; }, message, from)
                .has_value();
    }
    // The first connection from index from on, Connected or Reconnected: which one it was.
    std::optional<ConnectionState> waitForConnection(QString *message, int from = 0)
    {
        return waitFor(leader::console::isConnected, message, from);
    }
    StatusSnapshot nextSnapshot()
    {
        const qsizetype before = snapshots.size();
        pollNow();
        if (!QTest::qWaitFor([&] { return snapshots.size() > before; }, Timeout))
            return {};
        return snapshots.last().at(0).value<StatusSnapshot>();
    }
    // The first snapshot that satisfies the predicate: a poll already in flight when a test
    // changed the database answers first, from before the change.
    template<typename Predicate>
    StatusSnapshot snapshotWhere(Predicate predicate)
    {
        QDeadlineTimer deadline(Timeout);
        StatusSnapshot snapshot = nextSnapshot();
        while (!predicate(snapshot) && !deadline.hasExpired())
            snapshot = nextSnapshot();
        return snapshot;
    }
    // pollNow() reads the registry too, after the poll.
    RegistrySnapshot nextRegistry()
    {
        const qsizetype before = registries.size();
        pollNow();
        if (!QTest::qWaitFor([&] { return registries.size() > before; }, Timeout))
            return RegistrySnapshot{
                    .available = false, .replicas = {}, .error = QStringLiteral("no answer")};
        return registries.last().at(0).value<RegistrySnapshot>();
    }
    QStringList messages() const
    {
        QStringList all;
        for (const auto &arguments : connection)
            all << arguments.at(1).toString();
        return all;
    }

private:
    std::optional<ConnectionState> waitFor(const std::function<bool(ConnectionState)> &matches,
                                           QString *message, int from)
    {
        for (;;) {
            for (int i = from; i < connection.size(); ++i) {
                const auto state = connection.at(i).at(0).value<ConnectionState>();
                if (matches(state)) {
                    if (message)
                        *message = connection.at(i).at(1).toString();
                    return state;
                }
            }
            from = int(connection.size());
            if (!connection.wait(Timeout))
                return std::nullopt;
        }
    }

    QThread m_thread;
    StatusPoller *m_poller;

public:
    Relay relay;
    QSignalSpy snapshots;
    QSignalSpy connection;
    QSignalSpy privileges;
    QSignalSpy actions;
    QSignalSpy failures;
    QSignalSpy registries;
};

class TestStatusPoller final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_db = std::make_unique<TestDatabase>("statuspoller");
        m_db->migrateLease();
        // A session zone far from UTC: instants come back as epoch seconds, so it must not show.
        m_db->connectDirect(Login::Owner)
                .exec("zone",
                      "ALTER DATABASE \"" + m_db->name() + "\" SET TimeZone = 'Asia/Kathmandu'", {},
                      10s);
    }
    void init() { m_db->resetLeases(); }
    void cleanupTestCase() { m_db.reset(); }

    void retryBackoff()
    {
        QCOMPARE(StatusPoller::retryDelayMs(0), 1000);
        QCOMPARE(StatusPoller::retryDelayMs(1), 2000);
        QCOMPARE(StatusPoller::retryDelayMs(2), 5000);
        QCOMPARE(StatusPoller::retryDelayMs(9), 5000);
    }

    void connectsAndReadsPrivileges_data()
    {
        QTest::addColumn<Login>("login");
        QTest::addColumn<bool>("canPause");
        QTest::addColumn<QString>("reason");
        QTest::newRow("app") << Login::App << true << QString();
        QTest::newRow("monitor") << Login::Monitor << false
                                 << "read-only: lt_monitor has no EXECUTE on "
                                    "leader_ext.leader_pause or leader_ext.leader_unpause";
        QTest::newRow("owner") << Login::Owner << true << QString();
    }

    void connectsAndReadsPrivileges()
    {
        QFETCH(Login, login);
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(login)));
        QString message;
        const std::optional<ConnectionState> connected = harness.waitForConnection(&message);
        QVERIFY(connected);
        QCOMPARE(*connected, ConnectionState::Connected);
        QVERIFY2(message.startsWith(QLatin1String("connected to lt_")), qPrintable(message));
        QVERIFY(!message.contains(qs(loginPassword())));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.privileges.isEmpty(), Timeout);
        const auto privileges = harness.privileges.last().at(0).value<Privileges>();
        QTEST(privileges.canPause, "canPause");
        QCOMPARE(privileges.canUnpause, privileges.canPause);
        QTEST(privileges.reason, "reason");
        QCOMPARE(privileges.schemaWarning, QString());

        // Connecting polls at once, even with the interval off.
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        const auto snapshot = harness.snapshots.first().at(0).value<StatusSnapshot>();
        QCOMPARE(snapshot.roles.size(), 5);
        QStringList roles;
        for (const auto &status : snapshot.roles)
            roles << status.role;
        QCOMPARE(roles, QStringList({"billing", "dunning", "email_outbox", "webhook_delivery",
                                     "webhook_outbox"}));
        QCOMPARE(snapshot.roles.at(0).state, leader::console::RoleState::NeverRan);
        QVERIFY(snapshot.roles.at(0).token > 0);
        QVERIFY(!snapshot.roles.at(0).lastTickAgeSeconds);
        QVERIFY(snapshot.databaseTime.isValid());
        QCOMPARE(snapshot.databaseTime.timeSpec(), Qt::UTC);
        QVERIFY(snapshot.roundTripMs > 0);
        // One machine, one clock: the drift is the half round trip's error, nowhere near the
        // session zone's 5 h 45 min.
        QVERIFY2(std::abs(snapshot.clockDriftMs) < 2000,
                 qPrintable(QString::number(snapshot.clockDriftMs)));
        QVERIFY(harness.failures.isEmpty());
    }

    // ADR-114's 0174 and 0175 only, as leaderctl migrate applies them (no extension: not even
    // 0176's wake NOTIFY): the app login reads, pauses two roles in one transaction through the
    // ADR's leader_pause (no end: refused in one line, nothing changed; an unknown role among
    // them: none changed) and unpauses them through leader_unpause(role); the registry says what
    // it needs; the schema line names what is missing, and nothing is a failure. Checked to fail
    // with the poller's Privileges left without the reader's features.
    void adrOnlyDatabasePausesAndUnpauses()
    {
        TestDatabase adr("statuspoller_adr");
        {
            leader::pg::Connection owner = adr.connect(Login::Owner);
            leader::schema::Migrator(owner).migrate({leader::schema::MigrationSet::Adr});
        }
        PollerHarness harness;
        harness.setTarget(profileFor(adr.url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.privileges.isEmpty(), Timeout);
        const auto privileges = harness.privileges.last().at(0).value<Privileges>();
        QVERIFY(privileges.canPause && privileges.canUnpause);
        QCOMPARE(privileges.reason, QString());
        QVERIFY(privileges.features.adr());
        QCOMPARE(privileges.features.extension, 0);
        QVERIFY2(privileges.schemaWarning.contains(QLatin1String("leader_ext 0176"))
                         && privileges.schemaWarning.contains(QLatin1String("leaderctl migrate")),
                 qPrintable(privileges.schemaWarning));
        QVERIFY(!privileges.schemaWarning.contains(QLatin1Char('\n')));

        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        const auto first = harness.snapshots.last().at(0).value<StatusSnapshot>();
        QCOMPARE(first.roles.size(), 5);
        for (const auto &role : first.roles) {
            QVERIFY(!role.earlyTake.has_value());
            QCOMPARE(role.tookOver, leader::console::TookOver::None);
        }

        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("billing"), QStringLiteral("dunning")},
                          QStringLiteral("alice@ops"), QStringLiteral("adr only"), {});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const ActionResult paused = actionAt(harness.actions, 0);
        QVERIFY2(paused.ok, qPrintable(paused.error));
        QCOMPARE(paused.changes.size(), 2);
        for (const auto &change : paused.changes) {
            QVERIFY(change.changed);
            QVERIFY(!change.notified); // no wake NOTIFY: the holder hears at its next heartbeat
            QVERIFY(!change.until.isValid());
            QCOMPARE(change.pausedBy, QStringLiteral("alice@ops"));
        }

        // An end needs the pause log: one line, before anything is sent.
        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("email_outbox")}, QStringLiteral("alice@ops"),
                          QStringLiteral("timed"), {QStringLiteral("15m"), {}});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 2, Timeout);
        const ActionResult timed = actionAt(harness.actions, 1);
        QVERIFY(!timed.ok);
        QVERIFY2(timed.error.contains(QLatin1String("needs the extension leader_ext 0177")),
                 qPrintable(timed.error));
        QVERIFY(!timed.error.contains(QLatin1Char('\n')));

        // All or nothing on the ADR's function too.
        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("webhook_outbox"), QStringLiteral("payroll")},
                          QStringLiteral("alice@ops"), QStringLiteral("typo"), {});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 3, Timeout);
        QVERIFY(!actionAt(harness.actions, 2).ok);

        auto snapshot = harness.nextSnapshot();
        QCOMPARE(snapshot.roles.size(), 5);
        const auto stateOf = [&snapshot](int row) {
            return snapshot.roles.at(row).state;
        };
        QCOMPARE(stateOf(0), leader::console::RoleState::Paused);   // billing
        QCOMPARE(stateOf(1), leader::console::RoleState::Paused);   // dunning
        QCOMPARE(stateOf(2), leader::console::RoleState::NeverRan); // email_outbox
        QCOMPARE(stateOf(4), leader::console::RoleState::NeverRan); // webhook_outbox

        harness.call([](StatusPoller *poller) {
            poller->unpause({QStringLiteral("billing"), QStringLiteral("dunning")}, QString(),
                            QString());
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 4, Timeout);
        const ActionResult unpaused = actionAt(harness.actions, 3);
        QVERIFY2(unpaused.ok, qPrintable(unpaused.error));
        QCOMPARE(unpaused.changes.size(), 2);
        QVERIFY(unpaused.changes.at(0).changed && unpaused.changes.at(1).changed);
        snapshot = harness.nextSnapshot();
        QCOMPARE(stateOf(0), leader::console::RoleState::NeverRan);
        QCOMPARE(stateOf(1), leader::console::RoleState::NeverRan);

        const RegistrySnapshot registry = harness.nextRegistry();
        QVERIFY2(registry.error.isEmpty(), qPrintable(registry.error));
        QVERIFY(!registry.available);
        QVERIFY2(
                registry.unavailable.contains(QLatin1String("needs the extension leader_ext 0178")),
                qPrintable(registry.unavailable));
        QVERIFY(harness.failures.isEmpty());
    }

    // An extension rolled back under a connected console (and added again): the reader probes
    // now and then, and the window's privileges follow without a reconnect. Checked to fail with
    // StatusPoller's comparison of the polled features removed.
    void featuresFollowTheDatabaseWithoutAReconnect()
    {
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.privileges.isEmpty(), Timeout);
        QCOMPARE(harness.privileges.last().at(0).value<Privileges>().features.extension,
                 leader::schema::LatestExtension);

        leader::pg::Connection owner = m_db->connectDirect(Login::Owner);
        leader::schema::Migrator migrator(owner);
        QCOMPARE(migrator.rollbackTo(177), extensionsDownTo(177));
        const auto restore = qScopeGuard([&migrator] {
            migrator.migrate(
                    {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
        });
        const int probe
                = int(std::chrono::milliseconds(leader::monitor::StatusReader::FeaturesProbedEvery)
                              .count());
        const auto latest = [&harness] {
            return harness.privileges.last().at(0).value<Privileges>();
        };
        harness.call([](StatusPoller *poller) { poller->setInterval(500); });
        QTRY_VERIFY_WITH_TIMEOUT(latest().features.extension == 176, probe + Timeout);
        QVERIFY2(latest().schemaWarning.contains(QLatin1String("leader_ext 0177")),
                 qPrintable(latest().schemaWarning));
        QCOMPARE(harness.connection.size(), 2); // connecting, connected: no reconnect
        QVERIFY(harness.failures.isEmpty());
    }

    void registryListsReplicasAndIsUnavailableWithout0178()
    {
        const std::string holder = "console-test:4242:0000abcd";
        auto owner = m_db->connectDirect(Login::Owner);
        const auto forget = qScopeGuard([&owner, &holder] {
            owner.exec("forget", "DELETE FROM leader_ext.leader_replicas WHERE holder_id = $1",
                       {holder}, 5s);
        });
        // As a replica registers itself: the app login, through the function.
        m_db->connectDirect(Login::App)
                .exec("seen",
                      "SELECT leader_ext.leader_replica_seen($1, 'console-test', 4242, '9.9.9',"
                      " ARRAY['billing', 'dunning'])",
                      {holder}, 5s);

        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::Monitor)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        const RegistrySnapshot registry = harness.nextRegistry();
        QVERIFY2(registry.error.isEmpty(), qPrintable(registry.error));
        QVERIFY(registry.available);
        const auto found
                = std::ranges::find(registry.replicas, qs(holder), &RegistryEntry::holderId);
        QVERIFY(found != registry.replicas.end());
        QCOMPARE(found->host, QStringLiteral("console-test"));
        QCOMPARE(found->pid, 4242);
        QCOMPARE(found->version, QStringLiteral("9.9.9"));
        QCOMPARE(found->roles, (QStringList{QStringLiteral("billing"), QStringLiteral("dunning")}));
        QVERIFY(found->alive);
        QVERIFY(found->lastSeen.isValid() && found->startedAt.isValid());
        QVERIFY2(found->lastSeenAgeSeconds >= 0 && found->lastSeenAgeSeconds < 35,
                 qPrintable(QString::number(found->lastSeenAgeSeconds)));

        // Without extension 0178: the registry reads as unavailable, says what it needs, and the
        // polls go on.
        leader::schema::Migrator migrator(owner);
        const auto restore = qScopeGuard([&migrator] {
            migrator.migrate(
                    {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
        });
        QCOMPARE(migrator.rollbackTo(178), extensionsDownTo(178));
        RegistrySnapshot without = harness.nextRegistry();
        // A read already in flight when the rollback committed may still have found the registry
        // (seen once under ctest -j3).
        if (without.available)
            without = harness.nextRegistry();
        QVERIFY2(without.error.isEmpty(), qPrintable(without.error));
        QVERIFY(!without.available);
        QVERIFY(without.replicas.isEmpty());
        QVERIFY2(without.unavailable.contains(QLatin1String("needs the extension leader_ext 0178")),
                 qPrintable(without.unavailable));
        QCOMPARE(harness.nextSnapshot().roles.size(), 5);
        QVERIFY(harness.failures.isEmpty());
    }

    void connectOptionsReachTheServer()
    {
        if (m_db->viaPgBouncer())
            QSKIP("PgBouncer's server connections carry its own startup parameters");
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        auto owner = m_db->connectDirect(Login::Owner);
        const auto result
                = owner.exec("activity",
                             "SELECT count(*) FROM pg_stat_activity"
                             " WHERE datname = $1 AND application_name = 'leader-console'",
                             {m_db->name()}, 5s);
        QCOMPARE(result.toInt64(0, 0), 1);
    }

    // A profile with a host list and one port each, read-write: the poller passes the refusing
    // first server, polls the second and says which one answered. Checked: with applyTo no longer
    // passing the port list in the connect options, this fails (both hosts get the first port).
    void hostListReachesTheServerThatAnswers()
    {
        const leader::test::LoopbackPort refusing(leader::test::LoopbackPort::Behaviour::Refuse);
        const QString host = qEnvironmentVariable("LEADER_TEST_HOST");
        QString error;
        const auto profile = ConnectionProfile::fromUrl(
                QStringLiteral(
                        "postgresql://lt_app:%1@%2:%3,%2:%4/%5?target_session_attrs=read-write")
                        .arg(qs(loginPassword()), host)
                        .arg(refusing.port())
                        .arg(m_db->targetPort())
                        .arg(qs(m_db->name())),
                &error);
        QVERIFY2(profile, qPrintable(error));
        QCOMPARE(profile->ports,
                 QStringLiteral("%1,%2").arg(refusing.port()).arg(m_db->targetPort()));
        PollerHarness harness;
        harness.setTarget(*profile);
        // A deadline, not waitForState: a poller that never connects keeps reporting failures.
        const auto connected = [&harness]() -> std::optional<QString> {
            for (const auto &arguments : std::as_const(harness.connection)) {
                if (arguments.at(0).value<ConnectionState>() == ConnectionState::Connected)
                    return arguments.at(1).toString();
            }
            return std::nullopt;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(connected(),
                                  qPrintable(harness.messages().join(QLatin1Char('|'))), Timeout);
        QCOMPARE(*connected(), QStringLiteral("connected to %1, answered by %2:%3")
                                       .arg(profile->describe(), host)
                                       .arg(m_db->targetPort()));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        QCOMPARE(harness.snapshots.first().at(0).value<StatusSnapshot>().roles.size(), 5);
    }

    // A server that refuses writes as read-only (a standby, a demoted primary; here a login made
    // read-only in this database) fails the pause with 25006, and the poller reconnects so that a
    // host list's target_session_attrs can find the primary. Checked (when the poller used QPSQL,
    // and again on the engine's connection): with 25006 no longer ending the session, this fails.
    void readOnlyRefusalReconnects()
    {
        if (m_db->viaPgBouncer())
            QSKIP("a pooled server connection may predate the read-only setting");
        const std::string readOnly = "ALTER ROLE lt_app IN DATABASE \"" + m_db->name()
                                     + "\" SET default_transaction_read_only = ";
        leader::pg::Connection admin({.url = std::getenv("LEADER_TEST_ADMIN_URL"),
                                      .applicationName = "leader-tests admin"});
        admin.exec("read-only", readOnly + "on", {}, 5s);
        const auto restore
                = qScopeGuard([&] { admin.exec("read-write", readOnly + "off", {}, 5s); });

        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        const int connectedAt = int(harness.connection.size());
        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("billing")}, QStringLiteral("alice@ops"),
                          QStringLiteral("drill"), {});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const QString failure = actionAt(harness.actions, 0).error;
        QVERIFY2(failure.contains(QLatin1String("SQLSTATE 25006")), qPrintable(failure));
        QString message;
        QVERIFY2(harness.waitForState(ConnectionState::Connecting, &message, connectedAt),
                 qPrintable(harness.messages().join(QLatin1Char('|'))));
        QVERIFY2(message.startsWith(QLatin1String("reconnecting: ")), qPrintable(message));
        const std::optional<ConnectionState> again
                = harness.waitForConnection(&message, connectedAt);
        QVERIFY2(again, qPrintable(harness.messages().join(QLatin1Char('|'))));
        QVERIFY2(*again == ConnectionState::Reconnected, qPrintable(message));
    }

    void pauseAndUnpauseShowInTheNextSnapshot()
    {
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);

        // Quotes and a backslash must arrive as typed: the literal is escaped, never pasted.
        const QString reason = QStringLiteral("O'Brien's key \\ rotation; DROP TABLE x --");
        const qsizetype before = harness.snapshots.size();
        harness.call([reason](StatusPoller *poller) {
            poller->pause({QStringLiteral("dunning")}, QStringLiteral("alice@ops"), reason, {});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const ActionResult paused = actionAt(harness.actions, 0);
        QVERIFY2(paused.ok, qPrintable(paused.error));
        QCOMPARE(paused.action, PauseAction::Pause);
        QCOMPARE(paused.changes.size(), 1);
        QVERIFY(paused.changes.at(0).changed);
        QVERIFY(!paused.changes.at(0).until.isValid());
        // The action polls by itself: no pollNow here.
        QTRY_VERIFY_WITH_TIMEOUT(harness.snapshots.size() > before, Timeout);
        auto snapshot = harness.snapshots.last().at(0).value<StatusSnapshot>();
        const auto &dunning = snapshot.roles.at(1);
        QCOMPARE(dunning.role, QStringLiteral("dunning"));
        QCOMPARE(dunning.state, leader::console::RoleState::Paused);
        QCOMPARE(dunning.pausedBy, QStringLiteral("alice@ops"));
        QCOMPARE(dunning.pauseReason, reason);
        QVERIFY(dunning.pausedAt.isValid());
        QVERIFY(std::abs(dunning.pausedAt.msecsTo(snapshot.databaseTime)) < 10000);

        // paused_at, read by libpq as epoch, equals what the poller parsed: zone-proof.
        auto app = m_db->connect(Login::App);
        const auto result = app.exec("paused_at",
                                     "SELECT (extract(epoch FROM paused_at) * 1000)::bigint"
                                     "  FROM leader_leases WHERE role = 'dunning'",
                                     {}, 5s);
        QCOMPARE(dunning.pausedAt.toMSecsSinceEpoch(), result.toInt64(0, 0));

        const qsizetype beforeUnpause = harness.snapshots.size();
        harness.call([](StatusPoller *poller) {
            poller->unpause({QStringLiteral("dunning")}, QStringLiteral("bob@ops"),
                            QStringLiteral("done"));
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 2, Timeout);
        const ActionResult unpaused = actionAt(harness.actions, 1);
        QVERIFY2(unpaused.ok, qPrintable(unpaused.error));
        QCOMPARE(unpaused.changes.size(), 1);
        QVERIFY(unpaused.changes.at(0).changed);
        QTRY_VERIFY_WITH_TIMEOUT(harness.snapshots.size() > beforeUnpause, Timeout);
        snapshot = harness.snapshots.last().at(0).value<StatusSnapshot>();
        QCOMPARE(snapshot.roles.at(1).state, leader::console::RoleState::NeverRan);
        QVERIFY(snapshot.roles.at(1).pausedBy.isEmpty());
    }

    void actionErrors_data()
    {
        QTest::addColumn<Login>("login");
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("role");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown role, pause") << Login::App << "pause"
                                             << "payroll"
                                             << "why"
                                             << "unknown role 'payroll'";
        QTest::newRow("unknown role, unpause") << Login::App << "unpause"
                                               << "payroll"
                                               << ""
                                               << "unknown role 'payroll'";
        QTest::newRow("empty reason") << Login::App << "pause"
                                      << "billing"
                                      << "  "
                                      << "leader_pause needs who pauses and why";
        QTest::newRow("read-only login")
                << Login::Monitor << "pause"
                << "billing"
                << "why"
                << "privilege missing: permission denied for function leader_pause (SQLSTATE "
                   "42501: insufficient privilege)";
        QTest::newRow("read-only login, unpause")
                << Login::Monitor << "unpause"
                << "billing"
                << ""
                << "permission denied for function leader_unpause";
    }

    void actionErrors()
    {
        QFETCH(Login, login);
        QFETCH(QString, action);
        QFETCH(QString, role);
        QFETCH(QString, reason);
        QFETCH(QString, expected);
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(login)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        harness.call([=](StatusPoller *poller) {
            if (action == QLatin1String("pause"))
                poller->pause({role}, QStringLiteral("alice@ops"), reason, {});
            else
                poller->unpause({role}, QStringLiteral("alice@ops"), reason);
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const ActionResult result = actionAt(harness.actions, 0);
        QCOMPARE(result.roles, QStringList{role});
        QCOMPARE(pauseActionName(result.action), action);
        QVERIFY(!result.ok);
        const QString message = result.error;
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY(!message.contains(QLatin1Char('\n')));
        // A refused action leaves the connection as it was.
        QCOMPARE(harness.nextSnapshot().roles.size(), 5);
    }

    // A pause with an end: the result carries the end the database computed, and the snapshot
    // counts down with the server's pause_remaining_seconds.
    void timedPauseShowsTheCountdown()
    {
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        const qsizetype before = harness.snapshots.size();
        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("billing")}, QStringLiteral("alice@ops"),
                          QStringLiteral("card processor maintenance"), {QStringLiteral("1h"), {}});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const ActionResult result = actionAt(harness.actions, 0);
        QVERIFY2(result.ok, qPrintable(result.error));
        const auto &change = result.changes.at(0);
        QVERIFY(change.changed);
        QCOMPARE(change.pausedAt.secsTo(change.until), 3600);

        QTRY_VERIFY_WITH_TIMEOUT(harness.snapshots.size() > before, Timeout);
        const auto snapshot = harness.snapshots.last().at(0).value<StatusSnapshot>();
        const auto &billing = snapshot.roles.at(0);
        QCOMPARE(billing.state, leader::console::RoleState::Paused);
        // The action's instants are printed to the millisecond, the poll's are epoch seconds.
        QVERIFY(std::abs(billing.pausedUntil.msecsTo(change.until)) <= 1);
        QVERIFY(billing.pauseRemainingSeconds);
        QVERIFY2(*billing.pauseRemainingSeconds > 3590 && *billing.pauseRemainingSeconds <= 3600,
                 qPrintable(QString::number(*billing.pauseRemainingSeconds)));
        // A pause without an end has no countdown.
        QVERIFY(!snapshot.roles.at(1).pauseRemainingSeconds);

        const auto later = harness.nextSnapshot();
        QVERIFY(*later.roles.at(0).pauseRemainingSeconds < *billing.pauseRemainingSeconds);
    }

    // The early take's switch (migration 0180) reaches the snapshot per role; on a schema without
    // it the field is unknown, not off, and the polls go on.
    void earlyTakeSwitchReachesTheSnapshot()
    {
        leader::pg::Connection owner = m_db->connectDirect(Login::Owner);
        owner.exec("switch", "UPDATE leader_leases SET early_take = (role <> 'billing')", {}, 5s);
        const auto restore = qScopeGuard([&owner] {
            owner.exec("switch", "UPDATE leader_leases SET early_take = true", {}, 5s);
        });
        {
            PollerHarness harness;
            harness.setTarget(profileFor(m_db->url(Login::App)));
            QVERIFY(harness.waitForState(ConnectionState::Connected));
            QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
            const auto snapshot = harness.snapshots.last().at(0).value<StatusSnapshot>();
            QCOMPARE(snapshot.roles.at(0).role, QStringLiteral("billing"));
            QCOMPARE(snapshot.roles.at(0).earlyTake, std::optional<bool>(false));
            QCOMPARE(snapshot.roles.at(1).earlyTake, std::optional<bool>(true));
        }
        leader::schema::Migrator migrator(owner);
        QCOMPARE(migrator.rollbackTo(180), extensionsDownTo(180));
        const auto migrateBack = qScopeGuard([&migrator] {
            migrator.migrate(
                    {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
        });
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        const auto snapshot = harness.snapshots.last().at(0).value<StatusSnapshot>();
        QCOMPARE(snapshot.roles.size(), 5);
        QVERIFY(!snapshot.roles.at(0).earlyTake.has_value());
        QVERIFY(harness.failures.isEmpty());
    }

    // Each registered source's reading (extension 0186) reaches its role's row, a failing source's
    // error reaches its row, a role without a source has none; a backlog the login may not read is
    // one line in the snapshot, not a failed poll, and the next poll reads it again. As the
    // monitor. Mutation check (done once): StatusPoller dropping each row's backlog failed at
    // billing's.
    void backlogReachesTheSnapshot()
    {
        leader::pg::Connection owner = m_db->connectDirect(Login::Owner);
        owner.execScript("sources",
                         "CREATE FUNCTION public.tst_poller_due() "
                         "RETURNS TABLE (pending bigint, oldest_pending_at timestamptz) "
                         "LANGUAGE sql STABLE AS $$ SELECT 7::bigint, now() - interval '90 s' $$;"
                         "CREATE FUNCTION public.tst_poller_failing() "
                         "RETURNS TABLE (pending bigint, oldest_pending_at timestamptz) "
                         "LANGUAGE plpgsql STABLE AS $$ BEGIN "
                         "RAISE EXCEPTION 'the ledger is locked'; END $$;"
                         "SELECT leader_ext.leader_backlog_register('billing', "
                         "'public.tst_poller_due()', 'due subscriptions');"
                         "SELECT leader_ext.leader_backlog_register('dunning', "
                         "'public.tst_poller_failing()', 'due runs');",
                         10s);
        const auto restore = qScopeGuard([&owner] {
            owner.execScript("sources",
                             "GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() "
                             "TO hardcount_monitor;"
                             "SELECT leader_ext.leader_backlog_unregister('billing');"
                             "SELECT leader_ext.leader_backlog_unregister('dunning');"
                             "DROP FUNCTION public.tst_poller_due();"
                             "DROP FUNCTION public.tst_poller_failing();",
                             10s);
        });
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::Monitor)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        StatusSnapshot snapshot = harness.nextSnapshot();
        QCOMPARE(snapshot.roles.size(), 5);
        QVERIFY2(snapshot.backlogError.isEmpty(), qPrintable(snapshot.backlogError));
        const auto backlogOf = [&snapshot](const QString &role) {
            for (const auto &status : std::as_const(snapshot.roles)) {
                if (status.role == role)
                    return status.backlog;
            }
            return std::optional<leader::console::RoleBacklog>();
        };
        const auto billing = backlogOf(QStringLiteral("billing"));
        QVERIFY(billing);
        QCOMPARE(billing->what, QStringLiteral("due subscriptions"));
        QCOMPARE(billing->pending, std::optional<qint64>(7));
        QVERIFY(billing->oldestAgeSeconds);
        QVERIFY2(*billing->oldestAgeSeconds >= 90 && *billing->oldestAgeSeconds < 90 + 15,
                 qPrintable(QString::number(*billing->oldestAgeSeconds)));
        QVERIFY(billing->error.isEmpty());
        const auto dunning = backlogOf(QStringLiteral("dunning"));
        QVERIFY(dunning);
        QCOMPARE(dunning->what, QStringLiteral("due runs"));
        QVERIFY(!dunning->pending);
        QVERIFY2(dunning->error.startsWith(QLatin1String("P0001: the ledger is locked")),
                 qPrintable(dunning->error));
        QVERIFY(!backlogOf(QStringLiteral("email_outbox")));

        owner.execScript("revoke",
                         "REVOKE EXECUTE ON FUNCTION leader_ext.leader_backlog() "
                         "FROM hardcount_monitor",
                         10s);
        snapshot = harness.snapshotWhere(
                [](const StatusSnapshot &read) { return !read.backlogError.isEmpty(); });
        QCOMPARE(snapshot.roles.size(), 5);
        QVERIFY2(snapshot.backlogError.contains(QLatin1String("42501")),
                 qPrintable(snapshot.backlogError));
        QVERIFY(!snapshot.backlogError.contains(u'\n'));
        QVERIFY(!backlogOf(QStringLiteral("billing")));
        owner.execScript("grant",
                         "GRANT EXECUTE ON FUNCTION leader_ext.leader_backlog() "
                         "TO hardcount_monitor",
                         10s);
        snapshot = harness.snapshotWhere(
                [](const StatusSnapshot &read) { return read.backlogError.isEmpty(); });
        QVERIFY2(snapshot.backlogError.isEmpty(), qPrintable(snapshot.backlogError));
        QCOMPARE(backlogOf(QStringLiteral("billing"))->pending, std::optional<qint64>(7));
        QVERIFY(harness.failures.isEmpty());
    }

    // Pausing a role paused already says whose pause is in force (who, when, why), and leaves it;
    // the other roles of the same request are paused by it.
    void alreadyPausedNamesWhoPausedIt()
    {
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("dunning")}, QStringLiteral("alice@ops"),
                          QStringLiteral("first"), {});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const ActionResult first = actionAt(harness.actions, 0);
        QVERIFY2(first.ok, qPrintable(first.error));
        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("billing"), QStringLiteral("dunning")},
                          QStringLiteral("bob@ops"), QStringLiteral("second"),
                          {QStringLiteral("15m"), {}});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 2, Timeout);
        const ActionResult second = actionAt(harness.actions, 1);
        QVERIFY2(second.ok, qPrintable(second.error));
        QCOMPARE(second.changes.size(), 2);
        QCOMPARE(second.changes.at(0).role, QStringLiteral("billing"));
        QVERIFY(second.changes.at(0).changed);
        QCOMPARE(second.changes.at(0).pausedBy, QStringLiteral("bob@ops"));
        const auto &dunning = second.changes.at(1);
        QVERIFY(!dunning.changed);
        QCOMPARE(dunning.pausedBy, QStringLiteral("alice@ops"));
        QCOMPARE(dunning.reason, QStringLiteral("first"));
        QCOMPARE(dunning.pausedAt, first.changes.at(0).pausedAt);
        QVERIFY(!dunning.until.isValid());
    }

    // Extension 0177 rolled back (0176's wake NOTIFY kept): the console polls without the pause's
    // end and pauses on the ADR's leader_pause, with its holder woken at once; an end is refused
    // in one line naming what it needs, before any statement. Checked to fail with the poller
    // dropping the record's notified.
    void schemaWithout0177PausesWithoutAnEnd()
    {
        leader::pg::Connection owner = m_db->connectDirect(Login::Owner);
        leader::schema::Migrator migrator(owner);
        QCOMPARE(migrator.rollbackTo(177), extensionsDownTo(177));
        const auto restore = qScopeGuard([&migrator] {
            migrator.migrate(
                    {leader::schema::MigrationSet::Adr, leader::schema::MigrationSet::Extension});
        });
        owner.exec("pause", "SELECT leader_pause('email_outbox', 'alice@ops', 'old schema')", {},
                   5s);
        PollerHarness harness;
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        auto snapshot = harness.snapshots.last().at(0).value<StatusSnapshot>();
        QCOMPARE(snapshot.roles.size(), 5);
        QCOMPARE(snapshot.roles.at(2).state, leader::console::RoleState::Paused);
        QVERIFY(!snapshot.roles.at(2).pausedUntil.isValid());
        QVERIFY(!snapshot.roles.at(2).pauseRemainingSeconds);
        QTRY_VERIFY_WITH_TIMEOUT(!harness.privileges.isEmpty(), Timeout);
        const auto privileges = harness.privileges.last().at(0).value<Privileges>();
        QVERIFY(privileges.canPause && privileges.canUnpause);
        QCOMPARE(privileges.features.extension, 176);

        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("billing")}, QStringLiteral("alice@ops"),
                          QStringLiteral("why"), {QStringLiteral("1h"), {}});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 1, Timeout);
        const ActionResult timed = actionAt(harness.actions, 0);
        QVERIFY(!timed.ok);
        QVERIFY2(timed.error.contains(QLatin1String("needs the extension leader_ext 0177")),
                 qPrintable(timed.error));
        QVERIFY(!timed.error.contains(QLatin1Char('\n')));

        harness.call([](StatusPoller *poller) {
            poller->pause({QStringLiteral("billing")}, QStringLiteral("alice@ops"),
                          QStringLiteral("why"), {});
        });
        QTRY_COMPARE_WITH_TIMEOUT(harness.actions.size(), 2, Timeout);
        const ActionResult paused = actionAt(harness.actions, 1);
        QVERIFY2(paused.ok, qPrintable(paused.error));
        QVERIFY(paused.changes.at(0).changed);
        QVERIFY(paused.changes.at(0).notified); // 0176's NOTIFY is there
        QCOMPARE(harness.nextSnapshot().roles.at(0).state, leader::console::RoleState::Paused);
        QVERIFY(harness.failures.isEmpty());
    }

    void failuresAreOneLineWithoutThePassword_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("expected");
        QTest::newRow("wrong password") << "password"
                                        << "authentication failed";
        QTest::newRow("missing schema") << "schema"
                                        << "lacks ADR-114's migration 0174";
        QTest::newRow("no SELECT on leader_status")
                << "nobody"
                << "privilege missing: lt_nobody may not read leader_status; GRANT "
                   "hardcount_monitor TO lt_nobody";
        QTest::newRow("refused port") << "refused"
                                      << "cannot reach the server";
    }

    void failuresAreOneLineWithoutThePassword()
    {
        QFETCH(QString, what);
        std::unique_ptr<TestDatabase> empty;
        std::optional<leader::test::LoopbackPort> refusing;
        ConnectionProfile profile = profileFor(m_db->url(Login::App));
        QString secret = profile.password;
        if (what == QLatin1String("password")) {
            profile.password = QString::fromLatin1(WrongPassword);
            secret = profile.password;
        } else if (what == QLatin1String("schema")) {
            empty = std::make_unique<TestDatabase>("statuspoller_empty");
            profile = profileFor(empty->url(Login::App));
        } else if (what == QLatin1String("nobody")) {
            profile = profileFor(m_db->url(Login::Nobody));
        } else if (what == QLatin1String("refused")) {
            refusing.emplace(leader::test::LoopbackPort::Behaviour::Refuse);
            profile.port = refusing->port();
        }

        PollerHarness harness;
        harness.setTarget(profile);
        QString message;
        QVERIFY(harness.waitForState(ConnectionState::Failed, &message));
        QFETCH(QString, expected);
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
        QVERIFY2(!message.contains(secret), qPrintable(message));
        if (what == QLatin1String("schema"))
            QVERIFY2(message.contains(QLatin1String("leaderctl migrate")), qPrintable(message));
        QVERIFY(harness.snapshots.isEmpty());

        // It keeps trying by itself, interval or not: a second attempt about a second later.
        const qsizetype before = harness.connection.size();
        QVERIFY(harness.waitForState(ConnectionState::Failed, nullptr, int(before)));
        for (const QString &text : harness.messages())
            QVERIFY2(!text.contains(secret), qPrintable(text));
    }

    // Polls at full rate beside four busy clients sharing PgBouncer's server connections.
    // Mutation check (done once, when the poller used QPSQL): with the poll's exec() swapped for
    // prepare()+exec(), this test failed through PgBouncer with 'prepared statement
    // "qpsqlpstmt_3" does not exist'. The engine's connection sends unnamed statements only.
    void manyPollsBesideBusyPooledClients()
    {
        std::atomic<bool> stop = false;
        std::atomic<int> clientStatements = 0;
        std::atomic<int> clientFailures = 0;
        std::vector<std::thread> clients;
        for (int i = 0; i < 4; ++i) {
            clients.emplace_back([&, url = m_db->url(Login::App)] {
                leader::pg::Connection connection({.url = url, .applicationName = "busy"});
                while (!stop) {
                    try {
                        connection.exec("busy",
                                        "SELECT role, holder_token FROM leader_status"
                                        " WHERE role = $1",
                                        {"billing"}, 5s);
                        ++clientStatements;
                    } catch (const std::exception &) {
                        ++clientFailures;
                    }
                }
            });
        }
        const auto joinClients = qScopeGuard([&] {
            stop = true;
            for (auto &client : clients)
                client.join();
        });

        PollerHarness harness;
        // Each answer asks for the next poll at once: as fast as the round trip allows.
        QObject::connect(&harness.relay, &Relay::snapshot, &harness.relay,
                         [&harness] { harness.pollNow(); });
        QObject::connect(&harness.relay, &Relay::pollFailed, &harness.relay,
                         [&harness] { harness.pollNow(); });
        harness.setTarget(profileFor(m_db->url(Login::App)));
        QTRY_VERIFY_WITH_TIMEOUT(harness.snapshots.size() + harness.failures.size() >= 150, 60000);
        stop = true;
        QCOMPARE(harness.failures.size(), 0);
        QCOMPARE(clientFailures.load(), 0);
        QVERIFY(clientStatements.load() > 100);
        for (const auto &arguments : std::as_const(harness.snapshots))
            QCOMPARE(arguments.at(0).value<StatusSnapshot>().roles.size(), 5);
    }

    void reconnects_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("backend terminated") << "terminate";
        QTest::newRow("link dropped") << "drop";
    }

    void reconnects()
    {
        QFETCH(QString, how);
        if (how == QLatin1String("terminate") && m_db->viaPgBouncer())
            QSKIP("through a transaction pooler the backend is not the poller's own: the pooler "
                  "hides its death (the link-dropped row covers this route)");
        leader::faults::LinkProxy proxy("127.0.0.1", m_db->targetPort());
        ConnectionProfile profile = profileFor(m_db->url(Login::App));
        if (how == QLatin1String("drop"))
            profile.port = proxy.start();

        PollerHarness harness;
        harness.setTarget(profile);
        QVERIFY(harness.waitForState(ConnectionState::Connected));
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.isEmpty(), Timeout);
        const int connectedAt = int(harness.connection.size());

        if (how == QLatin1String("terminate")) {
            // Only a superuser (or pg_signal_backend) may end another login's backend.
            leader::pg::Connection admin({.url = std::getenv("LEADER_TEST_ADMIN_URL"),
                                          .applicationName = "leader-tests admin"});
            admin.open();
            const auto result
                    = admin.exec("terminate",
                                 "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                                 " WHERE datname = $1 AND application_name = 'leader-console'",
                                 {m_db->name()}, 5s);
            QCOMPARE(result.toInt64(0, 0), 1);
        } else {
            proxy.dropAll();
        }
        // The next poll finds the session gone and opens a new one within its deadline: before
        // sending, when the server's goodbye or the closed socket is already there to read, or
        // after the poll failed, reporting it once and reconnecting at once. Either way live rows
        // follow without waiting out the backoff.
        const qsizetype snapshotsBefore = harness.snapshots.size();
        harness.pollNow();
        QTRY_VERIFY2_WITH_TIMEOUT(harness.snapshots.size() > snapshotsBefore,
                                  qPrintable(harness.messages().join(QLatin1Char('|'))), Timeout);
        QVERIFY(harness.failures.size() <= 1);
        for (const auto &failure : std::as_const(harness.failures))
            QVERIFY(!failure.at(0).toString().contains(profile.password));
        for (qsizetype i = connectedAt; i < harness.connection.size(); ++i) {
            const auto state = harness.connection.at(i).at(0).value<ConnectionState>();
            const QString message = harness.connection.at(i).at(1).toString();
            if (state == ConnectionState::Connecting)
                QVERIFY2(message.startsWith(
                                 QLatin1String("reconnecting: the server closed the connection")),
                         qPrintable(message));
            else
                QCOMPARE(state, ConnectionState::Reconnected);
        }
        QCOMPARE(harness.nextSnapshot().roles.size(), 5);
    }

    void intervalAndSuspension()
    {
        PollerHarness harness;
        harness.call([](StatusPoller *poller) { poller->setInterval(100); });
        harness.setTarget(profileFor(m_db->url(Login::Monitor)));
        QTRY_VERIFY_WITH_TIMEOUT(harness.snapshots.size() >= 5, Timeout);

        harness.call([](StatusPoller *poller) { poller->setSuspended(true); });
        // A poll already queued may still land; after that, silence while suspended.
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.wait(300), Timeout);
        const qsizetype suspendedAt = harness.snapshots.size();
        QVERIFY(!harness.snapshots.wait(500)); // five intervals with no poll
        QCOMPARE(harness.snapshots.size(), suspendedAt);

        // Resuming polls at once, then on the timer again.
        harness.call([](StatusPoller *poller) { poller->setSuspended(false); });
        QVERIFY(harness.snapshots.wait(Timeout));
        QTRY_VERIFY_WITH_TIMEOUT(harness.snapshots.size() >= suspendedAt + 3, Timeout);

        // Interval off: no timer, but pollNow still answers.
        harness.call([](StatusPoller *poller) { poller->setInterval(0); });
        QTRY_VERIFY_WITH_TIMEOUT(!harness.snapshots.wait(300), Timeout);
        const qsizetype offAt = harness.snapshots.size();
        harness.pollNow();
        QTRY_COMPARE_WITH_TIMEOUT(harness.snapshots.size(), offAt + 1, Timeout);
    }

private:
    std::string loginPassword() const
    {
        const char *password = std::getenv("LEADER_TEST_PASSWORD");
        return password ? password : "";
    }

    std::unique_ptr<TestDatabase> m_db;
};

QTEST_GUILESS_MAIN(TestStatusPoller)
#include "tst_statuspoller.moc"
