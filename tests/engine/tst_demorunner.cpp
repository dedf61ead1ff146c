// The embedded demo as `leaderctl demo --run` and the console run it: a private cluster in a
// temporary directory, three replicas leading the five roles under the workload; the billing
// leader killed mid-tick and its takeover measured on the database clock; a freeze healed; a
// replica left frozen and the demo stopped within the console's bound all the same; the auditor
// clean afterwards.

#include "clusterroot.h"
#include "demo/auditor.h"
#include "demo/demorunner.h"
#include "lease/constants.h"
#include "lease/roles.h"
#include "measurement.h"
#include "pg/connection.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <mutex>
#include <set>

using namespace std::chrono_literals;
using leader::demo::DemoEvent;
using leader::demo::DemoEventKind;
using leader::demo::DemoRunner;
using leader::demo::ReplicaState;
using leader::demo::ReplicaStatus;
using leader::demo::Takeover;
using leader::faults::Fault;

namespace {

// What the console allows the whole demo shutdown (ConsoleSession::DemoShutdownBoundMs).
constexpr auto ShutdownBound = 4500ms;

// Records what the runner reports, from whichever thread it reports on.
class Recorder final : public leader::demo::DemoListener
{
public:
    void progress(const std::string &step) override
    {
        const std::lock_guard lock(m_mutex);
        m_progress.push_back(step);
    }
    void event(const DemoEvent &event) override
    {
        const std::lock_guard lock(m_mutex);
        m_events.push_back(event);
    }
    void replicasChanged(const std::vector<ReplicaStatus> &replicas) override
    {
        const std::lock_guard lock(m_mutex);
        m_replicas = replicas;
    }
    void takeoverMeasured(const Takeover &takeover) override
    {
        const std::lock_guard lock(m_mutex);
        m_takeovers.push_back(takeover);
    }

    std::set<std::string> rolesAcquired() const
    {
        const std::lock_guard lock(m_mutex);
        std::set<std::string> roles;
        for (const DemoEvent &event : m_events)
            if (event.event == DemoEventKind::Acquired)
                roles.insert(event.role);
        return roles;
    }
    std::optional<ReplicaStatus> replica(const std::string &id) const
    {
        const std::lock_guard lock(m_mutex);
        for (const ReplicaStatus &status : m_replicas)
            if (status.id == id)
                return status;
        return std::nullopt;
    }
    // The running replica that leads role now, per the last list told.
    std::string leaderOf(const std::string &role) const
    {
        const std::lock_guard lock(m_mutex);
        for (const ReplicaStatus &status : m_replicas)
            if (status.state == ReplicaState::Running
                && std::find(status.leading.begin(), status.leading.end(), role)
                           != status.leading.end())
                return status.id;
        return {};
    }
    std::optional<Takeover> takeoverOf(const std::string &role) const
    {
        const std::lock_guard lock(m_mutex);
        for (const Takeover &takeover : m_takeovers)
            if (takeover.role == role)
                return takeover;
        return std::nullopt;
    }
    std::string eventDetail(const std::string &source, const std::string &containing) const
    {
        const std::lock_guard lock(m_mutex);
        for (const DemoEvent &event : m_events)
            if (event.source == source && event.detail.find(containing) != std::string::npos)
                return event.detail;
        return {};
    }
    std::vector<std::string> workloadErrors() const
    {
        const std::lock_guard lock(m_mutex);
        std::vector<std::string> errors;
        for (const DemoEvent &event : m_events)
            if (event.source == "workload")
                errors.push_back(event.detail);
        return errors;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<std::string> m_progress;
    std::vector<DemoEvent> m_events;
    std::vector<ReplicaStatus> m_replicas;
    std::vector<Takeover> m_takeovers;
};

} // namespace

class tst_DemoRunner final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void leadsFaultsAndStopsWithinTheBound();
    void failsCleanly();

private:
    // Under /tmp, so the server account can reach it when the test runs as root.
    QTemporaryDir m_root{QStringLiteral("/tmp/tst_demorunner-XXXXXX")};
};

void tst_DemoRunner::initTestCase()
{
    QVERIFY(leader::test::openToServerAccount(m_root));
    if (const QString why = leader::test::whyNoCluster(); !why.isEmpty())
        QSKIP(qPrintable(why));
}

void tst_DemoRunner::leadsFaultsAndStopsWithinTheBound()
{
    const std::filesystem::path directory = m_root.filePath(QStringLiteral("demo")).toStdString();
    Recorder recorder;
    DemoRunner runner({.directory = directory, .replicas = 3, .takeoverDeadline = 25s}, recorder);
    const DemoRunner::StartResult started = runner.start();
    QVERIFY2(started.error.empty(), started.error.c_str());
    QVERIFY(runner.isRunning());
    QCOMPARE(started.endpoint.database, std::string("leader_demo"));
    QVERIFY(started.endpoint.port > 0);
    QVERIFY(!started.endpoint.password.empty());
    QCOMPARE(runner.replicas().size(), std::size_t(3));

    // Every role led by some replica: the outbox roles tick every two seconds, billing and
    // dunning at once on a fresh database.
    QTRY_VERIFY_WITH_TIMEOUT(recorder.rolesAcquired().size() == leader::lease::Roles.size(), 20000);

    // A refused fault changes nothing but says why.
    runner.inject({.replica = "r9", .kind = Fault::Kill});
    QVERIFY(recorder.eventDetail("faults", "r9").find("refused") != std::string::npos);
    // So does a fault the demo does not inject in-process.
    runner.inject({.replica = "r1", .kind = Fault::PgCrash});
    QVERIFY(recorder.eventDetail("faults", "pg-crash r1").find("refused") != std::string::npos);

    // Billing's tick lasts 30 s: its leader is killed during it, and a survivor takes billing over
    // as soon as the database has ended the dead replica's session.
    QTRY_VERIFY_WITH_TIMEOUT(!recorder.leaderOf("billing").empty(), 20000);
    const std::string victim = recorder.leaderOf("billing");
    runner.inject({.replica = victim, .kind = Fault::Kill});
    QTRY_VERIFY_WITH_TIMEOUT(recorder.replica(victim)->state == ReplicaState::Killed, 2000);
    QTRY_VERIFY_WITH_TIMEOUT(recorder.takeoverOf("billing").has_value(), 25000);
    const Takeover takeover = *recorder.takeoverOf("billing");
    qInfo("billing: %s -> %s, gap %.2f s", takeover.victim.c_str(), takeover.successor.c_str(),
          takeover.gapSeconds);
    QCOMPARE(takeover.victim, victim);
    QCOMPARE(takeover.fault, "kill " + victim);
    QVERIFY(takeover.successor != victim);
    QVERIFY2(takeover.successor.starts_with('r'), takeover.successor.c_str());
    QVERIFY(takeover.successorToken > takeover.victimToken);
    QVERIFY(takeover.lastHeartbeatAt && !takeover.releasedAt);
    QVERIFY(takeover.acquiredAt > *takeover.lastHeartbeatAt);
    // The killed replica's marker session ended with it (migration 0179): taken over within a
    // second of the kill, long before its lease's expiry.
    const double ttl = std::chrono::duration<double>(leader::lease::LeaseTTL).count();
    QVERIFY2(takeover.gapSeconds >= 0 && takeover.gapSeconds < ttl,
             qPrintable(QString::number(takeover.gapSeconds)));
    const double afterKill
            = std::chrono::duration<double>(takeover.acquiredAt - takeover.faultAt).count();
    QVERIFY2(afterKill >= 0 && afterKill < 1.0, qPrintable(QString::number(afterKill)));

    // A freeze shows in the replica's faults and a heal ends it.
    const std::string frozen = takeover.successor;
    runner.inject({.replica = frozen, .kind = Fault::Freeze, .duration = 60s});
    QTRY_VERIFY_WITH_TIMEOUT(recorder.replica(frozen)->faults.starts_with("frozen"), 2000);
    QVERIFY(recorder.replica(frozen)->faulted);
    QCOMPARE(recorder.replica(frozen)->state, ReplicaState::Running);
    runner.inject({.replica = frozen, .kind = Fault::Heal});
    QTRY_COMPARE_WITH_TIMEOUT(recorder.replica(frozen)->faults, std::string("normal"), 2000);
    QVERIFY(!recorder.replica(frozen)->faulted);

    // Frozen again, holding billing: the stop heals it first, so its release goes out, and the
    // whole demo stops within the console's bound.
    runner.inject({.replica = frozen, .kind = Fault::Freeze, .duration = 60s});
    QTRY_VERIFY_WITH_TIMEOUT(recorder.replica(frozen)->faults.starts_with("frozen"), 2000);
    const auto stopping = std::chrono::steady_clock::now();
    runner.stopReplicas();
    const auto replicasStopped = std::chrono::steady_clock::now();
    QVERIFY(!runner.isRunning());

    // The server is still up for the auditor: every invariant holds after a kill mid-tick.
    {
        leader::pg::Connection connection({.url = started.endpoint.socketUrl});
        const leader::demo::AuditReport report = leader::demo::audit(connection);
        for (const leader::demo::InvariantResult &invariant : report.invariants)
            QVERIFY2(invariant.holds, (invariant.role + ": " + invariant.name).c_str());
        // No lease is left held: the stop released every running tick.
        QCOMPARE(connection
                         .exec("held",
                               "SELECT count(*) FROM leader_leases WHERE holder_id IS NOT NULL", {},
                               5s)
                         .toInt64(0, 0),
                 std::int64_t(0));
    }
    const auto serverStopping = std::chrono::steady_clock::now();
    runner.stop();
    const auto stopped = std::chrono::steady_clock::now();
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
            (replicasStopped - stopping) + (stopped - serverStopping));
    leader::test::reportMeasurement(QString::asprintf(
            "demo runner: stopped in %lld ms (replicas %lld ms; 3 replicas, one frozen)",
            static_cast<long long>(elapsed.count()),
            static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                           replicasStopped - stopping)
                                           .count())));
    QVERIFY2(elapsed < ShutdownBound, qPrintable(QString::number(elapsed.count())));
    QVERIFY(!std::filesystem::exists(directory / "data" / "postmaster.pid"));
    for (const std::string &error : recorder.workloadErrors())
        QFAIL(error.c_str());
}

void tst_DemoRunner::failsCleanly()
{
    // A file where the cluster's directory should be: the cluster cannot start.
    const QString path = m_root.filePath(QStringLiteral("not-a-directory"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    Recorder recorder;
    DemoRunner runner({.directory = path.toStdString()}, recorder);
    const DemoRunner::StartResult started = runner.start();
    qInfo("%s", started.error.c_str());
    QVERIFY(!started.error.empty());
    QVERIFY(started.error.find('\n') == std::string::npos);
    QVERIFY(started.error.find(path.toStdString()) != std::string::npos);
    QVERIFY(!runner.isRunning());

    runner.inject({.replica = "r1", .kind = Fault::Kill});
    QVERIFY(recorder.eventDetail("faults", "r1").find("not running") != std::string::npos);
    runner.stop();
}

QTEST_GUILESS_MAIN(tst_DemoRunner)
#include "tst_demorunner.moc"
