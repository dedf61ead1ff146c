// The console's own files are its user's alone, whatever the umask (issue 51): its directories
// 0700, its files 0600, made so when new and narrowed when an older console left them wider; the
// settings file (profiles, preferences) stays 0600 however often QSettings rewrites it.

#include "core/connectionprofile.h"
#include "core/privatefiles.h"
#include "core/profilestore.h"
#include "filemodes.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace leader::console;
using leader::test::CommonUmask;
using leader::test::modeOf;
using leader::test::setMode;

class tst_PrivateFiles final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void directory_data();
    void directory();
    void file_data();
    void file();
    void narrowsWhatIsThere();
    void settingsArePrivate_data();
    void settingsArePrivate();
};

void tst_PrivateFiles::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    // An organisation of its own: its settings directory is removed here, and it is not another
    // test's.
    QCoreApplication::setOrganizationName(QStringLiteral("leader-console-tests-privatefiles"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_privatefiles"));
}

void tst_PrivateFiles::directory_data()
{
    QTest::addColumn<bool>("exists"); // an older console's, 0755
    QTest::newRow("new, with its parents") << false;
    QTest::newRow("older, 0755") << true;
}

// Only the directory itself changes: its parents may be shared (~/.config).
void tst_PrivateFiles::directory()
{
    QFETCH(bool, exists);
    const CommonUmask umask;
    QTemporaryDir base;
    QVERIFY(base.isValid());
    const QString parent = base.filePath(QStringLiteral("shared"));
    const QString path = parent + QStringLiteral("/own");
    if (exists) {
        QVERIFY(QDir().mkpath(path));
        QCOMPARE(modeOf(path), QStringLiteral("755"));
    }
    QVERIFY(ensurePrivateDirectory(path));
    QCOMPARE(modeOf(path), QStringLiteral("700"));
    QCOMPARE(modeOf(parent), QStringLiteral("755"));
    QVERIFY(ensurePrivateDirectory(path)); // again: nothing to do
    QCOMPARE(modeOf(path), QStringLiteral("700"));
}

void tst_PrivateFiles::file_data()
{
    QTest::addColumn<QByteArray>("contents"); // an older console's file; none when empty
    QTest::addColumn<int>("mode");
    QTest::newRow("new") << QByteArray() << 0;
    QTest::newRow("older, 0644") << QByteArray("[profiles]\n") << 0644;
    QTest::newRow("older, 0666") << QByteArray("x") << 0666;
}

void tst_PrivateFiles::file()
{
    QFETCH(QByteArray, contents);
    QFETCH(int, mode);
    const CommonUmask umask;
    QTemporaryDir base;
    QVERIFY(base.isValid());
    const QString path = base.filePath(QStringLiteral("console.conf"));
    if (!contents.isEmpty()) {
        QFile older(path);
        QVERIFY(older.open(QIODevice::WriteOnly));
        QCOMPARE(older.write(contents), contents.size());
        older.close();
        QVERIFY(setMode(path, mode_t(mode)));
    }
    QString error;
    QVERIFY2(ensurePrivateFile(path, &error), qPrintable(error));
    QCOMPARE(modeOf(path), QStringLiteral("600"));
    QFile written(path);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(written.readAll(), contents); // kept, or created empty

    // Under a file nothing can be created (not even by root): false, and why.
    QVERIFY(!ensurePrivateFile(path + QStringLiteral("/under"), &error));
    QVERIFY(!error.isEmpty());
}

// Every file an older console left in a directory, and only those: none is created, a
// subdirectory is left alone.
void tst_PrivateFiles::narrowsWhatIsThere()
{
    const CommonUmask umask;
    QTemporaryDir base;
    QVERIFY(base.isValid());
    const QStringList names{QStringLiteral("a.sqlite"), QStringLiteral("a.sqlite-wal"),
                            QStringLiteral(".hidden")};
    for (const QString &name : names) {
        QFile older(base.filePath(name));
        QVERIFY(older.open(QIODevice::WriteOnly));
    }
    QVERIFY(setMode(base.filePath(names.at(1)), 0664));
    QVERIFY(QDir(base.path()).mkdir(QStringLiteral("sub")));
    narrowFilesIn(base.path());
    for (const QString &name : names)
        QCOMPARE(modeOf(base.filePath(name)), QStringLiteral("600"));
    QCOMPARE(modeOf(base.filePath(QStringLiteral("sub"))), QStringLiteral("755"));
    QCOMPARE(QDir(base.path())
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                     .size(),
             names.size() + 1);
}

void tst_PrivateFiles::settingsArePrivate_data()
{
    QTest::addColumn<bool>("older"); // settings an older console wrote: 0644 in a 0755 directory
    QTest::newRow("first start") << false;
    QTest::newRow("older, 0644 in 0755") << true;
}

// At start, as main() does, then as the console writes: a profile saved, a preference changed,
// each rewriting the file through QSaveFile. The data directory (history, drill reports) too.
// Checked to fail with ensurePrivateConsoleFiles() doing nothing: "644 755 missing" on the first
// start, "644 755 755" for the older settings.
void tst_PrivateFiles::settingsArePrivate()
{
    QFETCH(bool, older);
    const CommonUmask umask;
    const QString settingsFile = QSettings().fileName();
    const QString settingsDirectory = QFileInfo(settingsFile).absolutePath();
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QVERIFY(QDir(settingsDirectory).removeRecursively());
    QVERIFY(QDir(data).removeRecursively());
    if (older) {
        QSettings().setValue(QStringLiteral("view/theme"), QStringLiteral("dark"));
        QVERIFY(QDir().mkpath(data));
        QCOMPARE(modeOf(settingsFile) + u' ' + modeOf(settingsDirectory) + u' ' + modeOf(data),
                 QStringLiteral("644 755 755"));
    }

    QVERIFY(ensurePrivateConsoleFiles());
    ConnectionProfile profile;
    profile.name = QStringLiteral("production");
    profile.host = QStringLiteral("db.example.com");
    profile.database = QStringLiteral("hardcount");
    profile.user = QStringLiteral("ops");
    {
        ProfileStore store;
        QVERIFY(store.save(profile));
        store.setLastUsed(profile.name);
        store.sync();
    }
    // Written when the temporary goes out of scope.
    QSettings().setValue(QStringLiteral("poll/intervalMs"), 2000);

    QCOMPARE(modeOf(settingsFile) + u' ' + modeOf(settingsDirectory) + u' ' + modeOf(data),
             QStringLiteral("600 700 700"));
    QCOMPARE(ProfileStore().load(profile.name)->host, profile.host);
    QCOMPARE(QSettings().value(QStringLiteral("poll/intervalMs")).toInt(), 2000);
    if (older)
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), u"dark");
}

QTEST_GUILESS_MAIN(tst_PrivateFiles)
#include "tst_privatefiles.moc"
