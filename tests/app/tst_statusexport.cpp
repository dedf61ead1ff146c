// The status export: every column, UTC times, RFC 4180 quoting, nulls as null in JSON.

#include "core/statusexport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace leader::console;

class StatusExportTest final : public QObject
{
    Q_OBJECT

private:
    static StatusSnapshot snapshot()
    {
        StatusSnapshot snapshot;
        snapshot.databaseTime = QDateTime(QDate(2026, 12, 2), QTime(20, 0, 1, 250), Qt::UTC);
        RoleStatus led;
        led.role = QStringLiteral("billing");
        led.state = leader::console::RoleState::Led;
        led.holderId = QStringLiteral("ws1:4242:0badcafe");
        led.token = 1764700000123;
        led.acquiredAt = QDateTime(QDate(2026, 12, 2), QTime(19, 59, 58), Qt::UTC);
        led.expiresInSeconds = 7.25;
        RoleStatus paused;
        paused.role = QStringLiteral("email_outbox");
        paused.state = leader::console::RoleState::Paused;
        paused.token = 7;
        paused.pausedAt = QDateTime(QDate(2026, 12, 2), QTime(19, 0), Qt::UTC);
        paused.pausedBy = QStringLiteral("alice@ops");
        paused.pauseReason = QStringLiteral("SMTP key rotation, \"phase 2\"\nticket OPS-1");
        paused.lastTickAgeSeconds = 3601.5;
        paused.pausedUntil = QDateTime(QDate(2026, 12, 2), QTime(21, 0), Qt::UTC);
        paused.pauseRemainingSeconds = 3598.75;
        snapshot.roles = {led, paused};
        return snapshot;
    }

private Q_SLOTS:
    void csv()
    {
        const QString csv = QString::fromUtf8(statusToCsv(snapshot()));
        const QStringList lines = csv.split(QStringLiteral("\r\n"));
        QVERIFY(lines.at(0).startsWith(QLatin1String("role,state,holder_id,holder_token")));
        QVERIFY(lines.at(1).startsWith(QLatin1String("billing,led,ws1:4242:0badcafe,1764700000123,"
                                                     "2026-12-02T19:59:58.000+00:00,7.250,")));
        QVERIFY(lines.at(1).endsWith(QLatin1String(",2026-12-02T20:00:01.250+00:00")));
        // The quote is doubled and the field quoted; its line break stays inside the quotes.
        // A pause that ends by itself: its end and the time left, beside who paused it and why.
        QVERIFY(lines.at(0).contains(
                QLatin1String(",pause_reason,paused_until,pause_remaining_seconds,")));
        QVERIFY2(csv.contains(QLatin1String(",2026-12-02T21:00:00.000+00:00,3598.750,")),
                 qPrintable(csv));
        QVERIFY2(
                csv.contains(QLatin1String("\"SMTP key rotation, \"\"phase 2\"\"\nticket OPS-1\"")),
                qPrintable(csv));
    }

    void json()
    {
        const QJsonObject document = QJsonDocument::fromJson(statusToJson(snapshot())).object();
        QCOMPARE(document.value(QStringLiteral("observed_at")).toString(),
                 QStringLiteral("2026-12-02T20:00:01.250+00:00"));
        const QJsonArray roles = document.value(QStringLiteral("roles")).toArray();
        QCOMPARE(roles.size(), 2);
        const QJsonObject billing = roles.at(0).toObject();
        QCOMPARE(billing.value(QStringLiteral("holder_token")).toDouble(), 1764700000123.0);
        QVERIFY(billing.value(QStringLiteral("last_tick_age_seconds")).isNull());
        QVERIFY(billing.value(QStringLiteral("paused_by")).isNull());
        const QJsonObject email = roles.at(1).toObject();
        QCOMPARE(email.value(QStringLiteral("pause_reason")).toString(),
                 snapshot().roles.at(1).pauseReason);
        QCOMPARE(email.value(QStringLiteral("last_tick_age_seconds")).toDouble(), 3601.5);
        QCOMPARE(email.value(QStringLiteral("paused_until")).toString(),
                 QStringLiteral("2026-12-02T21:00:00.000+00:00"));
        QCOMPARE(email.value(QStringLiteral("pause_remaining_seconds")).toDouble(), 3598.75);
        QVERIFY(billing.value(QStringLiteral("paused_until")).isNull());
        QVERIFY(billing.value(QStringLiteral("pause_remaining_seconds")).isNull());
    }
};

QTEST_GUILESS_MAIN(StatusExportTest)
#include "tst_statusexport.moc"
