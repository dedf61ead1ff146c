#pragma once

#include "core/databaseidentity.h"
#include "core/statustypes.h"
#include "core/tickhistory.h"

#include <QObject>
#include <QString>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <optional>
#include <vector>

namespace leader::console {

struct ConnectionProfile;
class HistoryWriter;

// The preferences of the history on disk (QSettings history/keep, history/retentionDays,
// history/maxMegabytes).
struct HistorySettings
{
    static constexpr int DefaultRetentionDays = 7;
    static constexpr int DefaultMaxMegabytes = 100;

    bool keep = true;
    int retentionDays = DefaultRetentionDays;
    int maxMegabytes = DefaultMaxMegabytes;

    qint64 retentionMs() const { return qint64(retentionDays) * 24 * 60 * 60 * 1000; }
    qint64 maxBytes() const { return qint64(maxMegabytes) * 1024 * 1024; }

    static HistorySettings load(); // from QSettings, out-of-range values clamped
    void save() const;

    friend bool operator==(const HistorySettings &, const HistorySettings &) = default;
};

// Where a database's history is kept (HistoryStore::keyFor): the file's key and, when the
// history was once kept under another one (how the database was opened, before it was kept under
// its identity), that key: its file becomes this one, or is merged into it, when the store opens.
struct HistoryKey
{
    HistoryKey() = default;
    HistoryKey(const QString &key) // NOLINT(google-explicit-constructor): nothing to take over
        : key(key)
    {}

    QString key;
    QString formerKey;

    friend bool operator==(const HistoryKey &, const HistoryKey &) = default;
};

// One database's status samples on disk, so that a console started again shows the last 24 h at
// once: a SQLite file (QSQLITE) in AppDataLocation/history/<key>.sqlite with the tiers TickHistory
// keeps in memory (raw 1 s samples for 15 min, 10 s min/max buckets for 2 h, 2 min min/max buckets
// for the retention) and its markers. The QSqlDatabase lives in a writer thread this object owns:
// record() only queues, the writer writes one transaction per batch (each BatchIntervalMs or
// BatchSamples, whichever comes first) and trims to the retention and the size bound every
// TrimEveryBatches batches (oldest first, the space given back with incremental_vacuum). On
// construction the writer opens the file and loads the last 24 h, handed over as restored().
// Only the user may read the history: the directory is 0700 and every file in it 0600, an older
// console's narrowed when a store opens (privatefiles.h).
// A file that cannot be read is renamed aside and a fresh one started; if no file can be written
// the history is not kept this session. Either way problem() says so in one line.
class HistoryStore final : public QObject
{
    Q_OBJECT

public:
    static constexpr int BatchIntervalMs = 1000;
    static constexpr int BatchSamples = 500;
    static constexpr int TrimEveryBatches = 60;

    // key names the database (keyFor()); the file is directory() + "/" + key.key + ".sqlite",
    // taking over key.formerKey's. retentionMs and maxBytes bound the file; see HistorySettings.
    HistoryStore(const HistoryKey &key, qint64 retentionMs, qint64 maxBytes,
                 QObject *parent = nullptr);
    // A store with settings' bounds.
    HistoryStore(const HistoryKey &key, const HistorySettings &settings, QObject *parent = nullptr);
    // Writes what is queued and closes the file; waits for the writer (a local file: bounded by
    // one batch and one trim).
    ~HistoryStore() override;

    // A file name for a database, with no secret in it: the user, host(s), port(s) and database
    // name, sanitised and shortened, and a short hash of them so two targets that sanitise alike
    // do not share a file.
    static QString keyFor(const ConnectionProfile &profile);
    // The same for a database's identity (its name and server), whichever way it was opened;
    // empty for an invalid identity.
    static QString keyFor(const DatabaseIdentity &identity);
    // The key a window keeps a connected database's history under: its identity's, taking over
    // what consoles before it kept under openedAs (keyFor(profile)); openedAs's alone when the
    // identity could not be read.
    static HistoryKey keyFor(const DatabaseIdentity &identity, const ConnectionProfile &openedAs);
    static QString directory(); // AppDataLocation/history
    QString filePath() const { return m_filePath; }
    bool isKeeping() const { return m_keeping; } // false after the writer gave up

    // Queues this poll's samples (each role's last_tick_age at the database time) and its
    // markers: the same arguments as TickHistory::append, which finds the markers in a TickHistory
    // of the store's own (seeded with the restored history, so a pause is not saved twice).
    // Snapshots not after the last one are ignored, as TickHistory ignores them.
    void record(const StatusSnapshot &snapshot, const QList<HolderChange> &changes = {});
    void flush(); // sends what is queued now instead of at the next batch
    void setBounds(qint64 retentionMs, qint64 maxBytes); // applied at the next trim
    void trimNow();                                      // a trim now, then trimmed()

    // The thread the last batch was written on (tests: never the GUI thread); null before any.
    Qt::HANDLE lastWriteThread() const { return m_lastWriteThread.load(); }

Q_SIGNALS:
    // The last 24 h as they were saved, once after opening (possibly empty).
    void restored(const leader::console::TickHistory::Saved &saved);
    void batchWritten(int rows);
    void trimmed(qint64 fileBytes);
    // One line: what is wrong, which file, what happens now.
    void problem(const QString &message);

private:
    // One sample, or a role seen without an age, or a marker, on its way to the writer.
    struct Row
    {
        enum class Kind { Role, Sample, Marker };
        Kind kind = Kind::Sample;
        QString role;
        qint64 timeMs = 0;
        float age = 0;
        TickHistory::Marker marker; // Kind::Marker
    };

    static QString readableKey(const QString &target);
    static QString filePathOf(const QString &key);
    void sendBatch();
    void loaded(const TickHistory::Saved &saved);
    void writerStopped(const QString &message);

    QString m_filePath;
    QThread m_thread;
    HistoryWriter *m_writer = nullptr; // lives in m_thread, deleted when it finishes
    QTimer m_batchTimer;
    std::vector<Row> m_pending;
    TickHistory m_markerFinder;
    std::optional<qint64> m_lastMs;
    bool m_keeping = true;
    std::atomic<Qt::HANDLE> m_lastWriteThread = nullptr;

    friend class HistoryWriter;
};

} // namespace leader::console

Q_DECLARE_METATYPE(leader::console::TickHistory::Saved)
