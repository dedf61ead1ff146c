// Which database the window watches: a URL that does not parse, or a profile not saved, opens the
// connection dialog with the reason; a first attempt the server refuses reopens it with the
// server's reason; another database is announced as such, so the window drops what it showed.
// The server is a loopback port that refuses every connection: no database needed.

#include "core/consolesession.h"
#include "loopbackport.h"
#include "ui/connectioncontroller.h"
#include "ui/connectiondialog.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>

#include <memory>

using namespace leader::console;
using leader::test::LoopbackPort;

class ConnectionControllerTest final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QWidget> m_window;
    ConsoleSession *m_session = nullptr;
    ConnectionController *m_controller = nullptr;

    ConnectionDialog *dialog() const { return m_window->findChild<ConnectionDialog *>(); }

    static ConnectionProfile refusing(const LoopbackPort &port, const QString &database)
    {
        ConnectionProfile profile;
        profile.host = QStringLiteral("127.0.0.1");
        profile.port = port.port();
        profile.database = database;
        profile.user = QStringLiteral("console");
        return profile;
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void init()
    {
        QSettings().clear();
        m_window = std::make_unique<QWidget>();
        m_session = new ConsoleSession(m_window.get());
        m_controller = new ConnectionController(m_window.get(), m_session, false);
    }

    void cleanup()
    {
        QSignalSpy finished(m_session, &ConsoleSession::finished);
        m_session->shutdown();
        QVERIFY(!finished.isEmpty() || finished.wait(5000));
        m_window.reset();
    }

    void notConnectedYet()
    {
        QVERIFY(!m_controller->hasTarget());
        QCOMPARE(m_controller->title(), QStringLiteral("not connected"));
        QVERIFY(!dialog());
    }

    void whatCannotBeTriedOpensTheDialog_data()
    {
        QTest::addColumn<bool>("url");
        QTest::addColumn<QString>("argument");
        QTest::addColumn<QString>("errorPart");
        QTest::newRow("bad URL") << true << "postgresql://alice@h:notaport/db" << QString();
        QTest::newRow("unknown profile") << false << "nowhere"
                                         << "\"nowhere\"";
    }

    void whatCannotBeTriedOpensTheDialog()
    {
        QFETCH(bool, url);
        QFETCH(QString, argument);
        QFETCH(QString, errorPart);
        QSignalSpy connecting(m_controller, &ConnectionController::connecting);
        if (url)
            m_controller->connectToUrl(argument);
        else
            m_controller->connectToProfile(argument);
        QVERIFY(dialog());
        QVERIFY(!dialog()->error().isEmpty());
        QVERIFY2(dialog()->error().contains(errorPart), qPrintable(dialog()->error()));
        QCOMPARE(connecting.count(), 0);
        QVERIFY(!m_controller->hasTarget());
        // Asked again, the same dialog says the newer reason.
        m_controller->openDialog(QStringLiteral("again"));
        QCOMPARE(m_window->findChildren<ConnectionDialog *>().size(), 1);
        QCOMPARE(dialog()->error(), QStringLiteral("again"));
    }

    void refusedFirstAttemptReopensTheDialog()
    {
        LoopbackPort port(LoopbackPort::Behaviour::Refuse);
        const ConnectionProfile first = refusing(port, QStringLiteral("hardcount"));
        QSignalSpy connecting(m_controller, &ConnectionController::connecting);
        m_controller->connectTo(first);
        QCOMPARE(connecting.count(), 1);
        QCOMPARE(connecting.at(0).at(0).toBool(), false); // nothing shown before
        QVERIFY(m_controller->hasTarget());
        QCOMPARE(m_controller->title(), first.describe());
        QCOMPARE(m_controller->connectionName(), first.describe());

        QTRY_VERIFY_WITH_TIMEOUT(dialog(), 10000);
        QVERIFY(!dialog()->error().isEmpty());
        // The dialog offers what was tried, to correct it.
        QCOMPARE(dialog()->profile().port, first.port);

        const ConnectionProfile second = refusing(port, QStringLiteral("other"));
        m_controller->connectTo(second);
        QCOMPARE(connecting.count(), 2);
        QCOMPARE(connecting.at(1).at(0).toBool(), true); // another database
        m_controller->connectTo(second);
        QCOMPARE(connecting.at(2).at(0).toBool(), false); // the same one again
    }

    void namedProfileInTheTitle()
    {
        LoopbackPort port(LoopbackPort::Behaviour::Refuse);
        ConnectionProfile profile = refusing(port, QStringLiteral("hardcount"));
        profile.name = QStringLiteral("staging");
        m_controller->connectTo(profile);
        QCOMPARE(m_controller->title(), QStringLiteral("staging (%1)").arg(profile.describe()));
    }
};

QTEST_MAIN(ConnectionControllerTest)
#include "tst_connectioncontroller.moc"
