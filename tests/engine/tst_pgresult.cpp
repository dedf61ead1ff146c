// leader::pg::Result reads numbers as the server prints them, whatever the process's locale: the
// console's process runs under the user's LC_NUMERIC (QCoreApplication calls setlocale), where
// std::stod reads "1796283994.973" as 1796283994. Every value here comes from a real server,
// straight and through PgBouncer in transaction mode, and is read under de_DE.UTF-8. With
// std::stod back in Result::toDouble, numbersUnderAGermanLocale fails (checked once).

#include "germannumbers.h"
#include "pg/connection.h"
#include "pg/result.h"
#include "testdatabase.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

using namespace std::chrono_literals;
using leader::pg::Connection;
using leader::pg::Result;
using leader::test::Login;
using leader::test::TestDatabase;

class TestPgResult final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void numbersUnderAGermanLocale();
    void badTextIsAClearError_data();
    void badTextIsAClearError();

private:
    Result query(const std::string &sql) { return m_connection->exec("test query", sql, {}, 5s); }

    std::unique_ptr<TestDatabase> m_db;
    std::unique_ptr<Connection> m_connection;
};

void TestPgResult::initTestCase()
{
    m_db = std::make_unique<TestDatabase>("pgresult");
    m_connection = std::make_unique<Connection>(m_db->connect(Login::Owner));
}

void TestPgResult::numbersUnderAGermanLocale()
{
    LEADER_GERMAN_NUMBERS(german);
    // An instant as TakeoverWatch reads it: epoch seconds with milliseconds.
    const Result result
            = query("SELECT '1796283994.973'::float8, 12.5::numeric, "
                    "extract(epoch FROM timestamptz '2026-12-03 12:26:34.973+00'), "
                    "'-Infinity'::float8, '1e-3'::float8, '-9223372036854775808'::bigint, "
                    "generate_series(1, 3)");
    QCOMPARE(result.text(0, 0), std::string_view("1796283994.973"));
    QCOMPARE(std::llround(result.toDouble(0, 0) * 1000), 1796283994973LL);
    QCOMPARE(result.toDouble(0, 1), 12.5);
    QCOMPARE(std::llround(result.toDouble(0, 2) * 1000), 1796300794973LL);
    QCOMPARE(result.toDouble(0, 3), -std::numeric_limits<double>::infinity());
    QCOMPARE(result.toDouble(0, 4), 0.001);
    QCOMPARE(result.toInt64(0, 5), std::numeric_limits<std::int64_t>::min());
    // The row count comes from the command tag ("SELECT 3").
    QCOMPARE(result.affected(), std::int64_t(3));
}

void TestPgResult::badTextIsAClearError_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<bool>("integer"); // toInt64, else toDouble
    QTest::addColumn<QString>("message");
    QTest::newRow("words") << "SELECT 'twelve' AS age" << false
                           << R"(column age (row 0) is "twelve", not a number)";
    // What std::stod under de_DE would have taken for 12.5, and what it reads as 12.
    QTest::newRow("decimal comma")
            << "SELECT '12,5' AS age" << false << R"(column age (row 0) is "12,5", not a number)";
    QTest::newRow("trailing text") << "SELECT '12.5 s' AS age" << false
                                   << R"(column age (row 0) is "12.5 s", not a number)";
    QTest::newRow("empty") << "SELECT '' AS age" << false
                           << R"(column age (row 0) is "", not a number)";
    QTest::newRow("NULL") << "SELECT NULL::float8 AS age" << false
                          << "column age (row 0) is NULL, not a number";
    QTest::newRow("fraction as integer") << "SELECT 12.5 AS token" << true
                                         << R"(column token (row 0) is "12.5", not an integer)";
    QTest::newRow("beyond bigint")
            << "SELECT '9223372036854775808'::numeric AS token" << true
            << R"(column token (row 0) is "9223372036854775808", not an integer)";
    QTest::newRow("long text, clipped") << "SELECT repeat('x', 100) AS age" << false
                                        << "is \"" + QString(40, u'x') + "...\", not a number";
}

void TestPgResult::badTextIsAClearError()
{
    QFETCH(QString, sql);
    QFETCH(bool, integer);
    QFETCH(QString, message);
    LEADER_GERMAN_NUMBERS(german);
    const Result result = query(sql.toStdString());
    try {
        if (integer)
            result.toInt64(0, 0);
        else
            result.toDouble(0, 0);
        QFAIL("bad text was read as a number");
    } catch (const std::invalid_argument &error) {
        QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
    }
}

QTEST_GUILESS_MAIN(TestPgResult)
#include "tst_pgresult.moc"
