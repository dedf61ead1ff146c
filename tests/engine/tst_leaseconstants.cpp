// The compiled-in lease constants of ADR-114 and the margin the heartbeat relies on.

#include "lease/constants.h"
#include "pg/connection.h"

#include <QtTest>

using namespace leader::lease;

class TestLeaseConstants final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void values();
    void abandonLeavesAStatementOfMarginBeforeExpiry();
    void markerRepairEndsBeforeTheGrace();
    void markerOutlivesAHolderThatCannotRenew();
    void handoverPreferenceOutlastsAPoll();
};

void TestLeaseConstants::values()
{
    QCOMPARE(LeaseTTL, 10s);
    QCOMPARE(HeartbeatEvery, 3s);
    QCOMPARE(StatementTimeout, 2s);
    QCOMPARE(AbandonAfter, 6s);
    QCOMPARE(MaxPoll, 5s);
    QCOMPARE(LostCooldownCap, 60s);
    QCOMPARE(EarlyTakeGrace, 200ms);
    QCOMPARE(MarkerRepairWithin, 100ms);
    QCOMPARE(MarkerPingEvery, 1s);
    QCOMPARE(PreferFor, 10s);
}

void TestLeaseConstants::abandonLeavesAStatementOfMarginBeforeExpiry()
{
    // A leader that abandons at AbandonAfter has at most one statement in flight, which ends by
    // its timeout: all before the lease can expire and another replica can take over.
    QVERIFY(AbandonAfter + StatementTimeout < LeaseTTL);
    // A beat that fails, even one that waits out its whole statement timeout, still leaves time
    // before the abandon to retry it on a fresh connection: one missed beat is not yet a loss.
    // (Two full beat periods do not fit: the next regular beat would be due at the abandon.)
    QVERIFY(HeartbeatEvery + StatementTimeout < AbandonAfter);
}

void TestLeaseConstants::markerRepairEndsBeforeTheGrace()
{
    // A holder that sees its marker end repairs it (or cancels its tick) within
    // MarkerRepairWithin, and the cancel reaches its statement in flight within
    // StatementCancelCheck; a contender granted the marker's lock waits EarlyTakeGrace. What is
    // left between the two covers seeing the end of file and the cancel's round trip.
    QVERIFY(MarkerRepairWithin + leader::pg::StatementCancelCheck + 50ms <= EarlyTakeGrace);
    // A listener that looks every 50 ms keeps its proof of life fresh without a wait.
    QVERIFY(MarkerFreshFor >= 3 * 50ms);
}

void TestLeaseConstants::markerOutlivesAHolderThatCannotRenew()
{
    // Cut off, a holder stops within AbandonAfter + StatementTimeout of its last beat; the server
    // ends its silent marker session only MarkerSilenceEnds after the last ping it received, which
    // may be a ping's gap before the cut. So the marker outlives the holder's work.
    QVERIFY(MarkerSilenceEnds - MarkerPingEvery > AbandonAfter + StatementTimeout);
    // A ping that goes unanswered makes the marker unproven long before then.
    QVERIFY(MarkerPingEvery + MarkerUnprovenAfter < AbandonAfter);
    // The ping keeps a proxy that cuts connections idle for 2 s from cutting the marker.
    QVERIFY(MarkerPingEvery < 2s);
}

void TestLeaseConstants::handoverPreferenceOutlastsAPoll()
{
    // The preferred replica tries within MaxPoll without a listener: two polls leave it a margin.
    // A preferred replica that never comes delays the role by less than a lost tick's cooldown.
    QCOMPARE(PreferFor, 2 * MaxPoll);
    QVERIFY(PreferFor < LostCooldownCap);
}

QTEST_GUILESS_MAIN(TestLeaseConstants)
#include "tst_leaseconstants.moc"
