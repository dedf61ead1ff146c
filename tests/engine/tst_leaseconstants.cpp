// The compiled-in lease constants of ADR-114 and the margin the heartbeat relies on.

#include "lease/constants.h"

#include <QtTest>

using namespace leader::lease;

class TestLeaseConstants final : public QObject
{
    Q_OBJECT

private slots:
    void values();
    void abandonLeavesAStatementOfMarginBeforeExpiry();
};

void TestLeaseConstants::values()
{
    QCOMPARE(LeaseTTL, 10s);
    QCOMPARE(HeartbeatEvery, 3s);
    QCOMPARE(StatementTimeout, 2s);
    QCOMPARE(AbandonAfter, 6s);
    QCOMPARE(MaxPoll, 5s);
    QCOMPARE(LostCooldownCap, 60s);
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

QTEST_GUILESS_MAIN(TestLeaseConstants)
#include "tst_leaseconstants.moc"
