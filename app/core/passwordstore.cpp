#include "core/passwordstore.h"

#include <QPointer>
#include <QScopeGuard>
#include <QTimer>
#include <qt6keychain/keychain.h>

#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
#include <QDBusConnection>
#include <QDBusMessage>
#endif

#include <memory>

namespace leader::console {

namespace {

// Process-wide: once the keychain has failed, no store asks it again, and only one says so.
PasswordStore::Availability s_availability = PasswordStore::Availability::Unknown;
QString s_reason;
bool s_announced = false;
bool s_probed = false;

// True when the error says the keychain itself is missing or broken, rather than "no such entry"
// or "the user said no" (which are answers from a working keychain).
bool meansUnavailable(QKeychain::Error error)
{
    switch (error) {
    case QKeychain::NoError:
    case QKeychain::EntryNotFound:
    case QKeychain::AccessDeniedByUser:
        return false;
    case QKeychain::CouldNotDeleteEntry:
    case QKeychain::AccessDenied:
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::OtherError:
        break;
    }
    return true;
}

QString oneLine(QString text)
{
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text.simplified();
}

// QtKeychain often says only "Unknown error"; name the likely cause so the note is useful.
QString describeFailure(QKeychain::Error error, const QString &errorString)
{
    QString what = oneLine(errorString);
    if (what.isEmpty() || what == QLatin1String("Unknown error")) {
        switch (error) {
        case QKeychain::NoBackendAvailable:
            what = PasswordStore::tr("no secret service or KWallet");
            break;
        case QKeychain::AccessDenied:
            what = PasswordStore::tr("access denied");
            break;
        case QKeychain::NotImplemented:
            what = PasswordStore::tr("not supported on this platform");
            break;
        default:
            what = PasswordStore::tr("the keychain failed (QtKeychain error %1)").arg(int(error));
            break;
        }
    }
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        what = PasswordStore::tr("no D-Bus session bus: %1").arg(what);
#endif
    return what;
}

} // namespace

PasswordStore::PasswordStore(QObject *parent)
    : QObject(parent)
{}

PasswordStore::~PasswordStore() = default;

QString PasswordStore::serviceName()
{
    return QStringLiteral("leader-console");
}

PasswordStore::Availability PasswordStore::availability()
{
    return s_availability;
}

QString PasswordStore::unavailableReason()
{
    return s_availability == Availability::Unavailable ? s_reason : QString();
}

void PasswordStore::setTimeout(std::chrono::milliseconds timeout)
{
    m_timeout = timeout;
}

void PasswordStore::read(const QString &profileName)
{
    start(Kind::Read, profileName, {});
}

void PasswordStore::write(const QString &profileName, const QString &password)
{
    start(Kind::Write, profileName, password);
}

void PasswordStore::remove(const QString &profileName)
{
    start(Kind::Remove, profileName, {});
}

void PasswordStore::disable(const QString &reason)
{
    if (s_availability != Availability::Unavailable) {
        s_availability = Availability::Unavailable;
        s_reason = oneLine(reason);
    }
    if (!s_announced) {
        s_announced = true;
        Q_EMIT unavailable(s_reason);
    }
}

QString PasswordStore::probeBackend()
{
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN)
    if (qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"))
        return tr("no D-Bus session bus");
    // A connection of its own, closed again: the shared session bus stays QtKeychain's.
    const QString name = QStringLiteral("leader-console-keychain-probe");
    const auto close = qScopeGuard([&name] { QDBusConnection::disconnectFromBus(name); });
    const QDBusConnection bus
            = QDBusConnection::connectToBus(qEnvironmentVariable("DBUS_SESSION_BUS_ADDRESS"), name);
    if (!bus.isConnected())
        return tr("the D-Bus session bus does not answer");
    // Running or started on demand: either answers a job.
    const QStringList backends{
            QStringLiteral("org.freedesktop.secrets"), QStringLiteral("org.kde.kwalletd6"),
            QStringLiteral("org.kde.kwalletd5"), QStringLiteral("org.kde.kwalletd")};
    for (const char *method : {"ListNames", "ListActivatableNames"}) {
        const QDBusMessage reply
                = bus.call(QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.DBus"),
                                                          QStringLiteral("/org/freedesktop/DBus"),
                                                          QStringLiteral("org.freedesktop.DBus"),
                                                          QLatin1String(method)),
                           QDBus::Block, 1000);
        if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty())
            return tr("the D-Bus session bus does not answer");
        const QStringList names = reply.arguments().constFirst().toStringList();
        for (const QString &backend : backends) {
            if (names.contains(backend))
                return {};
        }
    }
    return tr("no secret service or KWallet on the D-Bus session bus");
#else
    return {};
#endif
}

void PasswordStore::probe()
{
    if (s_probed || s_availability != Availability::Unknown)
        return;
    s_probed = true;
    const QString reason = probeBackend();
    if (!reason.isEmpty())
        disable(reason);
}

void PasswordStore::answer(Kind kind, const QString &profileName, const QString &password, bool ok)
{
    switch (kind) {
    case Kind::Read:
        Q_EMIT passwordRead(profileName, ok ? password : QString(), ok);
        break;
    case Kind::Write:
        Q_EMIT writeFinished(profileName, ok);
        break;
    case Kind::Remove:
        Q_EMIT removeFinished(profileName, ok);
        break;
    }
}

void PasswordStore::answerLater(Kind kind, const QString &profileName)
{
    // Queued so that a caller always gets its answer after read()/write() returned, whatever the
    // keychain's state.
    QTimer::singleShot(0, this,
                       [this, kind, profileName] { answer(kind, profileName, {}, false); });
}

void PasswordStore::start(Kind kind, const QString &profileName, const QString &password)
{
    if (s_availability == Availability::Unavailable || profileName.isEmpty()) {
        answerLater(kind, profileName);
        return;
    }

    QKeychain::Job *job = nullptr;
    switch (kind) {
    case Kind::Read:
        job = new QKeychain::ReadPasswordJob(serviceName());
        break;
    case Kind::Write: {
        auto writeJob = new QKeychain::WritePasswordJob(serviceName());
        writeJob->setTextData(password);
        job = writeJob;
        break;
    }
    case Kind::Remove:
        job = new QKeychain::DeletePasswordJob(serviceName());
        break;
    }
    // No parent: a job whose backend never calls back must not be deleted under it (that would
    // crash when it does); it deletes itself when it finishes. Never the plain-text fallback.
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(profileName);

    // Whichever comes first, the job or the timeout, answers; the other is ignored.
    auto answered = std::make_shared<bool>(false);
    auto timer = new QTimer(this);
    timer->setSingleShot(true);
    timer->setInterval(m_timeout);
    const QPointer<QTimer> guard(timer);

    connect(timer, &QTimer::timeout, this, [this, timer, answered, kind, profileName] {
        timer->deleteLater();
        if (*answered)
            return;
        *answered = true;
        disable(tr("the keychain did not answer within %1 s")
                        .arg(double(m_timeout.count()) / 1000.0, 0, 'g', 3));
        answer(kind, profileName, {}, false);
    });
    connect(job, &QKeychain::Job::finished, this,
            [this, guard, answered, kind, profileName](QKeychain::Job *finished) {
                if (guard)
                    guard->deleteLater();
                if (*answered)
                    return;
                *answered = true;
                const QKeychain::Error error = finished->error();
                if (meansUnavailable(error)) {
                    disable(describeFailure(error, finished->errorString()));
                    answer(kind, profileName, {}, false);
                    return;
                }
                if (s_availability == Availability::Unknown)
                    s_availability = Availability::Available;
                QString secret;
                if (kind == Kind::Read && error == QKeychain::NoError)
                    secret = static_cast<QKeychain::ReadPasswordJob *>(finished)->textData();
                // A missing entry is a successful delete.
                const bool ok = error == QKeychain::NoError
                                || (kind == Kind::Remove && error == QKeychain::EntryNotFound);
                answer(kind, profileName, secret, ok);
            });
    timer->start();
    job->start();
}

} // namespace leader::console
