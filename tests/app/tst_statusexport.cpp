// The status export: every column, UTC times, RFC 4180 quoting, nulls as null in JSON. The last
// tick's details, the hour's counts and the backlog in both formats, in Asia/Kolkata (UTC+05:30)
// so that a time in the local zone differs from UTC. Extension 0189's holder_outside and
// counts_ours_only, keyed as leaderctl status --json keys them: true, false, or null without it.
//
// Mutation checks, each done once: with counts_ours_only exported as jsonBool(false) whatever the
// row, every newFields row but "0189, our holder" failed; with holder_outside left out of the CSV,
// every row failed on its missing column.

#include "core/statusexport.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <ctime>

using namespace leader::console;

namespace {

// The keys the tick details (0184), the take (0179, 0180), the backlog (0186) and the holders
// outside the registry (0189) add to a role.
const QStringList NewKeys{
        QStringLiteral("took_over"),           QStringLiteral("early_take"),
        QStringLiteral("holder_outside"),      QStringLiteral("last_outcome"),
        QStringLiteral("last_loss_reason"),    QStringLiteral("last_duration_s"),
        QStringLiteral("last_ended_at"),       QStringLiteral("last_holder"),
        QStringLiteral("last_failed_step"),    QStringLiteral("last_error"),
        QStringLiteral("completed_last_hour"), QStringLiteral("lost_last_hour"),
        QStringLiteral("failed_last_hour"),    QStringLiteral("interrupted_last_hour"),
        QStringLiteral("counts_ours_only"),    QStringLiteral("backlog"),
};

// The CSV's columns for them: the backlog object flattened.
const QStringList NewColumns
        = QStringList(NewKeys.cbegin(), NewKeys.cend() - 1)
          + QStringList{QStringLiteral("backlog_what"), QStringLiteral("backlog_pending"),
                        QStringLiteral("backlog_oldest_pending_age_seconds"),
                        QStringLiteral("backlog_error")};

// As the poller hands it over: masked by the engine, a comma and quotes left for the export.
const QString MaskedError = QStringLiteral(
        "P0001: charge failed via postgresql://alice:***@db.example/pay password=***, \"retry\"");

// RFC 4180 records, quoted fields with commas, quotes and line breaks read back.
QList<QStringList> parseCsv(const QString &csv)
{
    QList<QStringList> records;
    QStringList record;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < csv.size(); ++i) {
        const QChar c = csv.at(i);
        if (quoted) {
            if (c == u'"' && i + 1 < csv.size() && csv.at(i + 1) == u'"')
                field += csv.at(++i);
            else if (c == u'"')
                quoted = false;
            else
                field += c;
        } else if (c == u'"') {
            quoted = true;
        } else if (c == u',') {
            record.append(std::exchange(field, QString()));
        } else if (c == u'\r' && i + 1 < csv.size() && csv.at(i + 1) == u'\n') {
            ++i;
            record.append(std::exchange(field, QString()));
            records.append(std::exchange(record, QStringList()));
        } else {
            field += c;
        }
    }
    return records;
}

} // namespace

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
    // Each new field of one role, in JSON and in CSV: set, on an older schema, and with a backlog
    // that could not be counted.
    void newFields_data()
    {
        QTest::addColumn<RoleStatus>("role");
        QTest::addColumn<QString>("backlogError"); // the snapshot's
        QTest::addColumn<TimeZoneMode>("zone");
        QTest::addColumn<QJsonObject>("json"); // every new key, backlog_error the document's
        QTest::addColumn<QStringList>("csv");  // the new columns, in NewColumns' order

        RoleStatus all;
        all.role = QStringLiteral("billing");
        all.state = RoleState::Led;
        all.token = 8;
        all.tookOver = TookOver::SessionEnded;
        all.earlyTake = false;
        all.lastOutcome = TickOutcome::Lost;
        all.lastLossReason = LossReason::TakenOver;
        all.lastDurationSeconds = 12.5;
        all.lastEndedAt = QDateTime(QDate(2026, 12, 2), QTime(19, 59, 30, 125), Qt::UTC);
        all.lastHolder = QStringLiteral("ws2:17:deadbeef");
        all.lastFailedStep = QStringLiteral("charge");
        all.lastError = MaskedError;
        all.lastHour = TickCounts{57, 1, 2, 0};
        all.backlog = RoleBacklog{QStringLiteral("due subscriptions"), 0, std::nullopt, {}};
        all.holderOutside = true;
        all.holderLastDurationSeconds = 4.5;
        all.countsOursOnly = true;
        QTest::newRow("every field set, local zone")
                << all << QString() << TimeZoneMode::Local
                << QJsonObject{{QStringLiteral("took_over"), QStringLiteral("session_ended")},
                               {QStringLiteral("early_take"), false},
                               {QStringLiteral("holder_outside"), true},
                               {QStringLiteral("last_outcome"), QStringLiteral("lost")},
                               {QStringLiteral("last_loss_reason"), QStringLiteral("taken_over")},
                               {QStringLiteral("last_duration_s"), 12.5},
                               {QStringLiteral("last_ended_at"),
                                QStringLiteral("2026-12-03T01:29:30.125+05:30")},
                               {QStringLiteral("last_holder"), QStringLiteral("ws2:17:deadbeef")},
                               {QStringLiteral("last_failed_step"), QStringLiteral("charge")},
                               {QStringLiteral("last_error"), MaskedError},
                               {QStringLiteral("completed_last_hour"), 57},
                               {QStringLiteral("lost_last_hour"), 1},
                               {QStringLiteral("failed_last_hour"), 2},
                               {QStringLiteral("interrupted_last_hour"), 0},
                               {QStringLiteral("counts_ours_only"), true},
                               // Nothing pending is 0, not null; its oldest age is then null.
                               {QStringLiteral("backlog"),
                                QJsonObject{{QStringLiteral("what"),
                                             QStringLiteral("due subscriptions")},
                                            {QStringLiteral("pending"), 0},
                                            {QStringLiteral("oldest_pending_age_seconds"),
                                             QJsonValue()},
                                            {QStringLiteral("error"), QJsonValue()}}},
                               {QStringLiteral("backlog_error"), QJsonValue()}}
                << QStringList{QStringLiteral("session_ended"),
                               QStringLiteral("false"),
                               QStringLiteral("true"),
                               QStringLiteral("lost"),
                               QStringLiteral("taken_over"),
                               QStringLiteral("12.500"),
                               QStringLiteral("2026-12-03T01:29:30.125+05:30"),
                               QStringLiteral("ws2:17:deadbeef"),
                               QStringLiteral("charge"),
                               MaskedError,
                               QStringLiteral("57"),
                               QStringLiteral("1"),
                               QStringLiteral("2"),
                               QStringLiteral("0"),
                               QStringLiteral("true"),
                               QStringLiteral("due subscriptions"),
                               QStringLiteral("0"),
                               QString(),
                               QString()};

        // The ADR's view alone: every key there, and null, so that it is not read as 0 or false.
        RoleStatus older;
        older.role = QStringLiteral("dunning");
        older.state = RoleState::Free;
        QJsonObject nulls{{QStringLiteral("backlog_error"), QJsonValue()}};
        for (const QString &key : NewKeys)
            nulls.insert(key, QJsonValue());
        QTest::newRow("older schema, UTC") << older << QString() << TimeZoneMode::Utc << nulls
                                           << QStringList(NewColumns.size(), QString());

        // With 0189, led by one of ours and no holder outside the registry in the hour: false,
        // not null.
        RoleStatus ours = older;
        ours.state = RoleState::Led;
        ours.holderId = QStringLiteral("ws1:4242:0badcafe");
        ours.holderOutside = false;
        ours.countsOursOnly = false;
        QJsonObject oursJson = nulls;
        oursJson.insert(QStringLiteral("holder_outside"), false);
        oursJson.insert(QStringLiteral("counts_ours_only"), false);
        QStringList oursCsv(NewColumns.size(), QString());
        oursCsv[NewColumns.indexOf(QStringLiteral("holder_outside"))] = QStringLiteral("false");
        oursCsv[NewColumns.indexOf(QStringLiteral("counts_ours_only"))] = QStringLiteral("false");
        QTest::newRow("0189, our holder")
                << ours << QString() << TimeZoneMode::Utc << oursJson << oursCsv;

        // With 0189 and nobody holding it: whose the lease is says nothing (null); the counts do.
        RoleStatus free = older;
        free.countsOursOnly = true;
        QJsonObject freeJson = nulls;
        freeJson.insert(QStringLiteral("counts_ours_only"), true);
        QStringList freeCsv(NewColumns.size(), QString());
        freeCsv[NewColumns.indexOf(QStringLiteral("counts_ours_only"))] = QStringLiteral("true");
        QTest::newRow("0189, free, theirs ran it")
                << free << QString() << TimeZoneMode::Utc << freeJson << freeCsv;

        // The source ran and failed: what it counts, no count, and why.
        RoleStatus failed = older;
        failed.role = QStringLiteral("email_outbox");
        failed.lastHour = TickCounts{};
        failed.backlog
                = RoleBacklog{QStringLiteral("pending outbox rows"), std::nullopt, std::nullopt,
                              QStringLiteral("P0001: queue unreachable: password=*** host=q")};
        QJsonObject failedJson = nulls;
        for (const char *key :
             {"completed_last_hour", "lost_last_hour", "failed_last_hour", "interrupted_last_hour"})
            failedJson.insert(QLatin1String(key), 0);
        failedJson.insert(
                QStringLiteral("backlog"),
                QJsonObject{{QStringLiteral("what"), QStringLiteral("pending outbox rows")},
                            {QStringLiteral("pending"), QJsonValue()},
                            {QStringLiteral("oldest_pending_age_seconds"), QJsonValue()},
                            {QStringLiteral("error"), failed.backlog->error}});
        QStringList failedCsv(NewColumns.size(), QString());
        for (qsizetype column = NewColumns.indexOf(QStringLiteral("completed_last_hour"));
             column <= NewColumns.indexOf(QStringLiteral("interrupted_last_hour")); ++column)
            failedCsv[column] = QStringLiteral("0");
        failedCsv[NewColumns.indexOf(QStringLiteral("backlog_what"))] = failed.backlog->what;
        failedCsv[NewColumns.indexOf(QStringLiteral("backlog_error"))] = failed.backlog->error;
        QTest::newRow("backlog source failed")
                << failed << QString() << TimeZoneMode::Utc << failedJson << failedCsv;

        // The backlog could not be read at all this poll: the document says why once; a CSV row,
        // having no document, says it in its backlog_error.
        const QString readError = QStringLiteral("42501: permission denied for function "
                                                 "leader_backlog");
        QJsonObject unreadJson = nulls;
        unreadJson.insert(QStringLiteral("backlog_error"), readError);
        QStringList unreadCsv(NewColumns.size(), QString());
        unreadCsv.last() = readError;
        QTest::newRow("backlog unreadable")
                << older << readError << TimeZoneMode::Utc << unreadJson << unreadCsv;
    }

    void newFields()
    {
        QFETCH(RoleStatus, role);
        QFETCH(QString, backlogError);
        QFETCH(TimeZoneMode, zone);
        QFETCH(QJsonObject, json);
        QFETCH(QStringList, csv);
        StatusSnapshot snapshot;
        snapshot.databaseTime = QDateTime(QDate(2026, 12, 2), QTime(20, 0, 1, 250), Qt::UTC);
        snapshot.roles = {role};
        snapshot.backlogError = backlogError;

        const QJsonObject document = QJsonDocument::fromJson(statusToJson(snapshot, zone)).object();
        const QJsonObject exported
                = document.value(QStringLiteral("roles")).toArray().at(0).toObject();
        for (auto expected = json.constBegin(); expected != json.constEnd(); ++expected) {
            const bool atTop = expected.key() == QLatin1String("backlog_error");
            const QJsonObject &holder = atTop ? document : exported;
            QVERIFY2(holder.contains(expected.key()), qPrintable(expected.key()));
            QVERIFY2(holder.value(expected.key()) == expected.value(),
                     qPrintable(expected.key() + QLatin1String(": ")
                                + QString::fromUtf8(QJsonDocument(holder).toJson())));
        }

        const QList<QStringList> records = parseCsv(QString::fromUtf8(statusToCsv(snapshot, zone)));
        QCOMPARE(records.size(), 2);
        QCOMPARE(records.at(1).size(), records.at(0).size());
        for (qsizetype column = 0; column < NewColumns.size(); ++column) {
            const qsizetype at = records.at(0).indexOf(NewColumns.at(column));
            QVERIFY2(at >= 0, qPrintable(NewColumns.at(column)));
            QCOMPARE(records.at(1).at(at), csv.at(column));
        }
    }

    // The tick details follow the last_tick_* columns, the backlog comes last before observed_at.
    void csvColumnOrder()
    {
        const QStringList header = parseCsv(QString::fromUtf8(statusToCsv(snapshot()))).at(0);
        QCOMPARE(header.indexOf(QStringLiteral("last_outcome")),
                 header.indexOf(QStringLiteral("last_tick_age_seconds")) + 1);
        QCOMPARE(header.indexOf(QStringLiteral("backlog_what")),
                 header.indexOf(QStringLiteral("not_before_in_seconds")) + 1);
        QCOMPARE(header.indexOf(QStringLiteral("backlog_error")), header.size() - 2);
        QCOMPARE(header.last(), QStringLiteral("observed_at"));
    }

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

int main(int argc, char **argv)
{
    // Before anything reads the zone: local time is Kolkata's, UTC+05:30.
    qputenv("TZ", "Asia/Kolkata");
    tzset();
    QCoreApplication app(argc, argv);
    StatusExportTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_statusexport.moc"
