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
    // Two beats fit before the abandon, so one missed beat is not yet a loss.
    QVERIFY(2 * HeartbeatEvery <= AbandonAfter);
}

QTEST_GUILESS_MAIN(TestLeaseConstants)
#include "tst_leaseconstants.moc"
