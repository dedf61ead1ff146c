// The drill report: Markdown and JSON from a DrillResult, every field, a missed bound shown as
// missed and a failed auditor as failed.

#include "core/drillreport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace leader::console;

namespace {

QDateTime at(const char *time)
{
    return QDateTime::fromString(QString::fromLatin1(time), Qt::ISODateWithMs);
}

DrillFault fault(const QString &kind, const QString &victim, const QString &successor,
                 const char *faultAt, const char *heartbeat, const char *acquired, double gap)
{
    DrillFault fault;
    fault.kind = kind;
    Failover &takeover = fault.takeover;
    takeover.role = QStringLiteral("billing");
    takeover.fault = kind + QLatin1Char(' ') + victim;
    takeover.victim = victim;
    takeover.victimHolder = QStringLiteral("ws:100:%1").arg(victim);
    takeover.victimToken = 1000;
    takeover.successor = successor;
    takeover.successorHolder = QStringLiteral("ws:100:%1").arg(successor);
    takeover.successorToken = 1001;
    takeover.faultAt = at(faultAt);
    takeover.lastHeartbeatAt = at(heartbeat);
    takeover.acquiredAt = at(acquired);
    takeover.gapSeconds = gap;
    return fault;
}

DrillResult sample()
{
    DrillResult result;
    result.startedAt = at("2026-12-03T19:00:00.000Z");
    result.endedAt = at("2026-12-03T19:01:10.000Z");
    result.faults = {
            fault("kill", "r2", "r3", "2026-12-03T19:00:10.000Z", "2026-12-03T19:00:08.500Z",
                  "2026-12-03T19:00:18.600Z", 10.1),
            fault("freeze", "r3", "r1", "2026-12-03T19:00:20.000Z", "2026-12-03T19:00:19.000Z",
                  "2026-12-03T19:00:29.100Z", 10.1),
            fault("sever", "r1", "r3", "2026-12-03T19:00:31.000Z", "2026-12-03T19:00:30.000Z",
                  "2026-12-03T19:00:40.050Z", 10.05),
    };
    DrillPause &pause = result.pause;
    pause.holder = QStringLiteral("r3");
    pause.holderId = QStringLiteral("ws:100:r3");
    pause.requestedAt = at("2026-12-03T19:00:42.000Z");
    pause.pausedAt = at("2026-12-03T19:00:42.010Z");
    pause.stoppedAt = at("2026-12-03T19:00:42.080Z");
    pause.stopEvent = QStringLiteral("paused_observed");
    pause.unpauseRequestedAt = at("2026-12-03T19:00:43.000Z");
    pause.ledAgainAt = at("2026-12-03T19:00:47.500Z");
    pause.ledAgainBy = QStringLiteral("r1");
    result.refusalsByRole = {{QStringLiteral("billing"), 2}, {QStringLiteral("dunning"), 1}};
    result.invariants = {
            {QStringLiteral("billing"),
             QStringLiteral("at most one invoice per subscription"),
             true,
             0,
             {}},
            {QStringLiteral("all roles"),
             QStringLiteral("no row claimed under a stale token"),
             true,
             0,
             {},
             true},
    };
    result.environment = {QStringLiteral("0.1.0"), QStringLiteral("15.10"), QStringLiteral("ws"),
                          QStringLiteral("Debian GNU/Linux 12 (bookworm)")};
    return result;
}

} // namespace

class DrillReportTest final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void report_data()
    {
        QTest::addColumn<int>("missedFault"); // -1: none
        QTest::addColumn<bool>("auditFails");
        QTest::addColumn<QString>("auditError");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<QString>("summary");

        QTest::newRow("every bound met, auditor passes")
                << -1 << false << QString() << "pass"
                << "4 faults on billing: 3 takeovers within ADR-114's 15 s bound (worst 10.10 s "
                   "after the last heartbeat), pause stopped the holder in 0.08 s; 0 claims "
                   "accepted from a replaced leader (3 refused by the fence); auditor: pass";
        QTest::newRow("a missed bound")
                << 1 << false << QString() << "pass"
                << "4 faults on billing: 2 of 3 takeovers within ADR-114's 15 s bound, 1 MISSED "
                   "(worst 16.20 s after the last heartbeat), pause stopped the holder in 0.08 s; "
                   "0 claims accepted from a replaced leader (3 refused by the fence); auditor: "
                   "pass";
        QTest::newRow("a failed auditor")
                << -1 << true << QString() << "fail"
                << "4 faults on billing: 3 takeovers within ADR-114's 15 s bound (worst 10.10 s "
                   "after the last heartbeat), pause stopped the holder in 0.08 s; 2 claims "
                   "accepted from a replaced leader (3 refused by the fence); auditor: fail";
        QTest::newRow("auditor not run")
                << -1 << false << "connection refused"
                << "not run"
                << "4 faults on billing: 3 takeovers within ADR-114's 15 s bound (worst 10.10 s "
                   "after the last heartbeat), pause stopped the holder in 0.08 s; unknown claims "
                   "accepted from a replaced leader (3 refused by the fence); auditor: not run";
    }

    void report()
    {
        QFETCH(int, missedFault);
        QFETCH(bool, auditFails);
        QFETCH(QString, auditError);
        QFETCH(QString, verdict);
        QFETCH(QString, summary);

        DrillResult result = sample();
        if (missedFault >= 0)
            result.faults[missedFault].takeover.gapSeconds = 16.2;
        if (auditFails) {
            result.invariants[1].holds = false;
            result.invariants[1].offending = 2;
            result.invariants[1].samples = {QStringLiteral("claim_log 7: billing claimed sub 3")};
        }
        if (!auditError.isEmpty())
            result.invariants.clear();
        result.auditError = auditError;

        QCOMPARE(result.summary(), summary);
        const QString markdown = drillMarkdown(result);
        QVERIFY(markdown.startsWith(summary + QLatin1Char('\n')));
        QVERIFY(markdown.contains(
                QStringLiteral("| 1 | kill r2 | r2 → r3 | 2026-12-03T19:00:10.000Z "
                               "| 2026-12-03T19:00:08.500Z | "
                               "2026-12-03T19:00:18.600Z | 10.10 s | 8.60 s | 15 s |")));
        QVERIFY(markdown.contains(QLatin1String("| 4 | pause billing | r3 stopped |")));
        QVERIFY(markdown.contains(QLatin1String("billing 2, dunning 1")));
        QVERIFY(markdown.contains(QLatin1String("Leader Console 0.1.0, PostgreSQL 15.10")));
        QVERIFY(markdown.contains(QLatin1String("ws:100:r2")));
        QCOMPARE(markdown.count(QLatin1String("**MISSED**")), missedFault >= 0 ? 1 : 0);
        QCOMPARE(markdown.contains(QLatin1String("FAILS: all roles: no row claimed under a stale "
                                                 "token (2 offending)")),
                 auditFails);
        QCOMPARE(markdown.contains(QLatin1String("claim_log 7: billing claimed sub 3")),
                 auditFails);
        QCOMPARE(markdown.contains(QLatin1String("not run: connection refused")),
                 !auditError.isEmpty());

        QJsonParseError error;
        const QJsonObject json = QJsonDocument::fromJson(drillJson(result), &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(json["role"].toString(), QStringLiteral("billing"));
        QCOMPARE(json["summary"].toString(), summary);
        QCOMPARE(json["started_at"].toString(), QStringLiteral("2026-12-03T19:00:00.000Z"));
        QCOMPARE(json["ended_at"].toString(), QStringLiteral("2026-12-03T19:01:10.000Z"));
        QCOMPARE(json["bound_s"].toDouble(), 15.0);
        QCOMPARE(json["acquirable_bound_s"].toDouble(), 10.0);

        const QJsonArray faults = json["faults"].toArray();
        QCOMPARE(faults.size(), 3);
        const QStringList kinds{"kill", "freeze", "sever"};
        for (int i = 0; i < faults.size(); ++i) {
            const QJsonObject fault = faults[i].toObject();
            const Failover &takeover = result.faults[i].takeover;
            QCOMPARE(fault["kind"].toString(), kinds[i]);
            QCOMPARE(fault["fault"].toString(), takeover.fault);
            QCOMPARE(fault["victim"].toString(), takeover.victim);
            QCOMPARE(fault["victim_holder"].toString(), takeover.victimHolder);
            QCOMPARE(fault["victim_token"].toInteger(), takeover.victimToken);
            QCOMPARE(fault["successor"].toString(), takeover.successor);
            QCOMPARE(fault["successor_holder"].toString(), takeover.successorHolder);
            QCOMPARE(fault["successor_token"].toInteger(), takeover.successorToken);
            QCOMPARE(fault["fault_at"].toString(), isoUtc(takeover.faultAt));
            QCOMPARE(fault["last_heartbeat_at"].toString(), isoUtc(takeover.lastHeartbeatAt));
            QCOMPARE(fault["acquired_at"].toString(), isoUtc(takeover.acquiredAt));
            QCOMPARE(fault["gap_from_last_heartbeat_s"].toDouble(), takeover.gapSeconds);
            QCOMPARE(fault["gap_from_fault_s"].toDouble(),
                     takeover.faultAt.msecsTo(takeover.acquiredAt) / 1000.0);
            QCOMPARE(fault["bound_s"].toDouble(), 15.0);
            QCOMPARE(fault["met"].toBool(), i != missedFault);
        }

        const QJsonObject pause = json["pause"].toObject();
        QCOMPARE(pause["holder"].toString(), QStringLiteral("r3"));
        QCOMPARE(pause["holder_id"].toString(), QStringLiteral("ws:100:r3"));
        QCOMPARE(pause["requested_at"].toString(), QStringLiteral("2026-12-03T19:00:42.000Z"));
        QCOMPARE(pause["paused_at"].toString(), QStringLiteral("2026-12-03T19:00:42.010Z"));
        QCOMPARE(pause["stopped_at"].toString(), QStringLiteral("2026-12-03T19:00:42.080Z"));
        QCOMPARE(pause["stop_event"].toString(), QStringLiteral("paused_observed"));
        QCOMPARE(pause["stop_s"].toDouble(), 0.08);
        QCOMPARE(pause["bound_s"].toDouble(), 3.0);
        QCOMPARE(pause["met"].toBool(), true);
        QCOMPARE(pause["unpause_requested_at"].toString(),
                 QStringLiteral("2026-12-03T19:00:43.000Z"));
        QCOMPARE(pause["led_again_at"].toString(), QStringLiteral("2026-12-03T19:00:47.500Z"));
        QCOMPARE(pause["led_again_by"].toString(), QStringLiteral("r1"));
        QCOMPARE(pause["led_again_s"].toDouble(), 4.5);

        const QJsonObject refusals = json["fence_refusals"].toObject();
        QCOMPARE(refusals["total"].toInteger(), 3);
        QCOMPARE(refusals["by_role"].toObject()["billing"].toInteger(), 2);
        QCOMPARE(refusals["by_role"].toObject()["dunning"].toInteger(), 1);

        const QJsonObject auditor = json["auditor"].toObject();
        QCOMPARE(auditor["verdict"].toString(), verdict);
        QCOMPARE(auditor["error"].toString(), auditError);
        QCOMPARE(auditor["invariants"].toArray().size(), result.invariants.size());
        QCOMPARE(auditor["findings"].toArray().size(), auditFails ? 1 : 0);
        if (auditFails) {
            const QJsonObject finding = auditor["findings"].toArray()[0].toObject();
            QCOMPARE(finding["holds"].toBool(), false);
            QCOMPARE(finding["offending"].toInteger(), 2);
            QCOMPARE(finding["samples"].toArray()[0].toString(),
                     QStringLiteral("claim_log 7: billing claimed sub 3"));
        }
        if (auditError.isEmpty())
            QCOMPARE(json["stale_claims_accepted"].toInteger(), auditFails ? 2 : 0);
        else
            QVERIFY(json["stale_claims_accepted"].isNull());

        const QJsonObject environment = json["environment"].toObject();
        QCOMPARE(environment["console_version"].toString(), QStringLiteral("0.1.0"));
        QCOMPARE(environment["server_version"].toString(), QStringLiteral("15.10"));
        QCOMPARE(environment["host_name"].toString(), QStringLiteral("ws"));
        QCOMPARE(environment["os"].toString(), QStringLiteral("Debian GNU/Linux 12 (bookworm)"));
    }

    // The chart beside the report is embedded after the table, its alt text saying what it shows;
    // without a chart, no image. (Checked once: without the chartFile argument's image line, this
    // fails.)
    void markdownEmbedsTheChart()
    {
        const DrillResult result = sample();
        const QString markdown = drillMarkdown(result, QStringLiteral("chart.png"));
        const QString image = QStringLiteral(
                "![Each role's last tick age and who held billing, from 19:00:00 to 19:01:10 UTC; "
                "the faults, takeovers and the pause numbered as in the table above](chart.png)");
        QVERIFY2(markdown.contains(image), qPrintable(markdown));
        QVERIFY(markdown.indexOf(image) > markdown.indexOf(QLatin1String("| 4 | pause billing |")));
        QVERIFY(markdown.indexOf(image) < markdown.indexOf(QLatin1String("### Details")));
        QVERIFY(!drillMarkdown(result).contains(QLatin1String("![")));
    }

    // A pause whose holder was never seen to stop is no measurement: no time, not met.
    void pauseNotSeenToStop()
    {
        DrillResult result = sample();
        result.pause.stoppedAt = {};
        QVERIFY(!result.summary().contains(QLatin1String("pause stopped")));
        QVERIFY(drillMarkdown(result).contains(QLatin1String("was not seen to stop")));
        const QJsonObject pause
                = QJsonDocument::fromJson(drillJson(result)).object()["pause"].toObject();
        QVERIFY(pause["stop_s"].isNull());
        QCOMPARE(pause["met"].toBool(), false);
    }
};

QTEST_GUILESS_MAIN(DrillReportTest)
#include "tst_drillreport.moc"
