#pragma once

#include <QObject>
#include <QString>

#include <chrono>

namespace leader::console {

// Connection passwords in the desktop keychain (QtKeychain, service "leader-console"), keyed by
// profile name. Everything is asynchronous and bounded: a job that fails for want of a keychain
// (no secret service, no D-Bus) or does not answer within timeout() makes the keychain unavailable
// for the rest of the process. unavailable() is then emitted once per process, and every later
// call answers "not found" (or "not written") at once, without asking the keychain again, so the
// console asks for the password and stores nothing. Use from the GUI thread only.
class PasswordStore final : public QObject
{
    Q_OBJECT

public:
    enum class Availability {
        Unknown,     // no job has answered yet in this process
        Available,   // a job answered (found or not found)
        Unavailable, // a job failed or timed out: the keychain is not asked again
    };
    Q_ENUM(Availability)

    explicit PasswordStore(QObject *parent = nullptr);
    ~PasswordStore() override;

    static QString serviceName(); // "leader-console"
    // Process-wide, shared by every PasswordStore.
    static Availability availability();
    static bool isUnavailable() { return availability() == Availability::Unavailable; }
    static QString unavailableReason(); // one line; empty unless Unavailable

    std::chrono::milliseconds timeout() const { return m_timeout; }
    void setTimeout(std::chrono::milliseconds timeout);

    // Each answers with its signal later, never from inside the call.
    void read(const QString &profileName);
    void write(const QString &profileName, const QString &password);
    void remove(const QString &profileName);

    // Stops using the keychain for the rest of the process (e.g. the user asked for no keychain).
    void disable(const QString &reason);

    // Why no keychain backend can answer here, asked of the session bus without a job (QtKeychain
    // 0.13 has no isAvailable()): no D-Bus session bus, or no secret service or KWallet on it.
    // Empty where one may answer (always on macOS and Windows). Synchronous: milliseconds on a
    // working or a missing bus; a bus that takes the connection and never answers holds it for
    // D-Bus's own timeout, as any D-Bus call would.
    static QString probeBackend();
    // Once per process, before the first job: disable() with probeBackend()'s reason if it has
    // one, so "Remember password" is off from the start rather than after a job's timeout.
    void probe();

Q_SIGNALS:
    void passwordRead(const QString &profileName, const QString &password, bool found);
    void writeFinished(const QString &profileName, bool ok);
    void removeFinished(const QString &profileName, bool ok);
    // Once per process, from the store that found out; reason is one line, never a secret.
    void unavailable(const QString &reason);

private:
    enum class Kind { Read, Write, Remove };
    void start(Kind kind, const QString &profileName, const QString &password);
    void answer(Kind kind, const QString &profileName, const QString &password, bool ok);
    void answerLater(Kind kind, const QString &profileName);

    std::chrono::milliseconds m_timeout{10000};
};

} // namespace leader::console
