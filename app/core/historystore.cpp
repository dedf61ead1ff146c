#include "historystore.h"

#include "core/connectionprofile.h"
#include "core/privatefiles.h"
#include "core/queued.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>

#include <algorithm>

namespace leader::console {

namespace {

constexpr int FineTier = 1;
constexpr int CoarseTier = 2;
constexpr int FormatVersion = 1;
constexpr qint64 DayMs = 24 * 60 * 60 * 1000;

const char *const Schema[] = {
        "CREATE TABLE IF NOT EXISTS roles (name TEXT PRIMARY KEY, ordinal INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS raw (role TEXT NOT NULL, time_ms INTEGER NOT NULL,"
        " age REAL NOT NULL, PRIMARY KEY (role, time_ms)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS buckets (tier INTEGER NOT NULL, role TEXT NOT NULL,"
        " start_ms INTEGER NOT NULL, min REAL NOT NULL, min_off INTEGER NOT NULL,"
        " max REAL NOT NULL, max_off INTEGER NOT NULL, PRIMARY KEY (tier, role, start_ms))"
        " WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS markers (id INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL,"
        " kind INTEGER NOT NULL, role TEXT NOT NULL, age REAL NOT NULL, holder TEXT,"
        " token INTEGER, previous TEXT, gap REAL, paused_by TEXT, reason TEXT)",
        "CREATE INDEX IF NOT EXISTS markers_time ON markers (time_ms)",
};

// A min/max bucket as TickHistory::addToBuckets keeps it: the lower minimum, the latest of equal
// maxima. SQLite evaluates every SET expression on the old row.
const char *const BucketConflict
        = " ON CONFLICT (tier, role, start_ms) DO UPDATE SET"
          " min_off = CASE WHEN excluded.min < min THEN excluded.min_off ELSE min_off END,"
          " min = CASE WHEN excluded.min < min THEN excluded.min ELSE min END,"
          " max_off = CASE WHEN excluded.max >= max THEN excluded.max_off ELSE max_off END,"
          " max = CASE WHEN excluded.max >= max THEN excluded.max ELSE max END";
const char *const UpsertBucket = "INSERT INTO buckets (tier, role, start_ms, min, min_off, max,"
                                 " max_off) VALUES (?, ?, ?, ?, ?, ?, ?)";

// A former file's rows into the open one, in one transaction, so that a history kept under two
// keys reads as one: roles after the open file's, samples already there kept, buckets joined as
// the writer joins them ("WHERE true" lets SQLite parse an upsert after a SELECT), and markers
// not already there (a merge cut short before the former file was deleted is merged again).
const char *const MergeFormer[] = {
        "INSERT OR IGNORE INTO main.roles (name, ordinal)"
        " SELECT name, ordinal + (SELECT count(*) FROM main.roles) FROM former.roles",
        "INSERT OR IGNORE INTO main.raw (role, time_ms, age)"
        " SELECT role, time_ms, age FROM former.raw",
        "INSERT INTO main.buckets (tier, role, start_ms, min, min_off, max, max_off)"
        " SELECT tier, role, start_ms, min, min_off, max, max_off FROM former.buckets WHERE true",
        "INSERT INTO main.markers (time_ms, kind, role, age, holder, token, previous, gap,"
        " paused_by, reason) SELECT time_ms, kind, role, age, holder, token, previous, gap,"
        " paused_by, reason FROM former.markers AS f WHERE NOT EXISTS (SELECT 1 FROM main.markers"
        " AS m WHERE m.time_ms = f.time_ms AND m.kind = f.kind AND m.role = f.role)",
};
constexpr int MergeBuckets = 2; // MergeFormer's statement that needs BucketConflict

const QStringList SqliteSuffixes{QString(), QStringLiteral("-wal"), QStringLiteral("-shm")};

qint64 bucketStart(qint64 timeMs, qint64 bucketMs)
{
    return timeMs - (((timeMs % bucketMs) + bucketMs) % bucketMs);
}

QVariant textOrNull(const QString &text)
{
    return text.isEmpty() ? QVariant() : QVariant(text);
}

} // namespace

// Owns the QSqlDatabase connection; every member runs on the store's writer thread.
class HistoryWriter final : public QObject
{
public:
    HistoryWriter(HistoryStore *store, const QString &filePath, const QString &formerPath,
                  qint64 retentionMs, qint64 maxBytes)
        : m_store(store)
        , m_filePath(filePath)
        , m_formerPath(formerPath)
        , m_connectionName(QStringLiteral("leader-history-%1").arg(++s_connections))
        , m_retentionMs(retentionMs)
        , m_maxBytes(maxBytes)
    {}

    void open();
    void write(const std::vector<HistoryStore::Row> &rows);
    void trim();
    void close();
    void setBounds(qint64 retentionMs, qint64 maxBytes)
    {
        m_retentionMs = retentionMs;
        m_maxBytes = maxBytes;
    }

private:
    QSqlDatabase database() const { return QSqlDatabase::database(m_connectionName, false); }
    bool openFile(QString *error);
    bool takeOverFormer();
    void mergeFormer();
    bool exec(const QString &sql, QString *error);
    bool run(const QString &sql, const QVariantList &values = {}, qint64 *firstValue = nullptr);
    bool load(TickHistory::Saved *saved, QString *error);
    qint64 pragma(const char *name);
    qint64 usedBytes() { return (pragma("page_count") - pragma("freelist_count")) * m_pageSize; }
    bool trimOldest();
    void vacuum();
    void stop(const QString &message);
    void report(const QString &message);

    static inline std::atomic<int> s_connections = 0;

    HistoryStore *m_store; // only to post results to the GUI thread
    QString m_filePath;
    QString m_formerPath; // empty, or the file an earlier console kept this database's history in
    QString m_connectionName;
    qint64 m_retentionMs;
    qint64 m_maxBytes;
    qint64 m_pageSize = 4096;
    std::optional<qint64> m_latestMs;
    int m_batches = 0;
    bool m_open = false;
};

bool HistoryWriter::exec(const QString &sql, QString *error)
{
    QSqlQuery query(database());
    if (query.exec(sql))
        return true;
    *error = query.lastError().text();
    return false;
}

qint64 HistoryWriter::pragma(const char *name)
{
    qint64 value = 0;
    return run(QStringLiteral("PRAGMA ") + QLatin1String(name), {}, &value) ? value : 0;
}

bool HistoryWriter::openFile(QString *error)
{
    // 0600 before SQLite opens it: SQLite would create it with the umask, and it gives the -wal,
    // -shm and -journal it creates the file's mode.
    if (!ensurePrivateFile(m_filePath, error))
        return false;
    {
        QSqlDatabase db
                = QSqlDatabase::contains(m_connectionName)
                          ? database()
                          : QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
        db.setDatabaseName(m_filePath);
        if (!db.open()) {
            *error = db.lastError().text();
            return false;
        }
    }
    // auto_vacuum must come before the first table; on an existing file it is a no-op.
    if (!exec(QStringLiteral("PRAGMA auto_vacuum = INCREMENTAL"), error)
        || !exec(QStringLiteral("PRAGMA journal_mode = WAL"), error)
        || !exec(QStringLiteral("PRAGMA synchronous = NORMAL"), error)) {
        return false;
    }
    const qint64 version = pragma("user_version");
    if (version != 0 && version != FormatVersion) {
        *error = QStringLiteral("unknown format version %1").arg(version);
        return false;
    }
    for (const char *statement : Schema) {
        if (!exec(QLatin1String(statement), error))
            return false;
    }
    if (!exec(QStringLiteral("PRAGMA user_version = %1").arg(FormatVersion), error))
        return false;
    m_pageSize = std::max<qint64>(512, pragma("page_size"));
    // The WAL is emptied at each trim; between trims it stays small.
    return exec(QStringLiteral("PRAGMA journal_size_limit = %1")
                        .arg(std::clamp<qint64>(m_maxBytes / 10, 64 * 1024, 4 * 1024 * 1024)),
                error);
}

bool HistoryWriter::load(TickHistory::Saved *saved, QString *error)
{
    QSqlQuery query(database());
    const auto fail = [&] {
        *error = query.lastError().text();
        return false;
    };
    if (!query.exec(
                QStringLiteral("SELECT max(t) FROM (SELECT max(time_ms) AS t FROM raw UNION ALL"
                               " SELECT max(start_ms + max(min_off, max_off)) FROM buckets)"))) {
        return fail();
    }
    if (query.next() && !query.value(0).isNull())
        m_latestMs = query.value(0).toLongLong();
    if (!m_latestMs)
        return true;
    const qint64 latest = *m_latestMs;

    QHash<QString, qsizetype> index;
    if (!query.exec(QStringLiteral("SELECT name FROM roles ORDER BY ordinal")))
        return fail();
    while (query.next()) {
        index.insert(query.value(0).toString(), saved->roles.size());
        saved->roles.append({query.value(0).toString(), {}, {}, {}});
    }
    query.prepare(QStringLiteral("SELECT role, time_ms, age FROM raw WHERE time_ms >= ?"
                                 " ORDER BY role, time_ms"));
    query.addBindValue(latest - TickHistory::RawRetentionMs);
    if (!query.exec())
        return fail();
    while (query.next()) {
        const auto it = index.constFind(query.value(0).toString());
        if (it != index.cend()) {
            saved->roles[*it].raw.append(
                    {query.value(1).toLongLong(), float(query.value(2).toDouble())});
        }
    }
    query.prepare(
            QStringLiteral("SELECT tier, role, start_ms, min, min_off, max, max_off"
                           " FROM buckets WHERE (tier = ? AND start_ms + ? > ?)"
                           " OR (tier = ? AND start_ms + ? > ?) ORDER BY tier, role, start_ms"));
    for (const QVariant &value :
         {QVariant(FineTier), QVariant(TickHistory::FineBucketMs),
          QVariant(latest - TickHistory::FineRetentionMs), QVariant(CoarseTier),
          QVariant(TickHistory::CoarseBucketMs), QVariant(latest - TickHistory::RetentionMs)}) {
        query.addBindValue(value);
    }
    if (!query.exec())
        return fail();
    while (query.next()) {
        const auto it = index.constFind(query.value(1).toString());
        if (it == index.cend())
            continue;
        TickHistory::SavedRole &role = saved->roles[*it];
        (query.value(0).toInt() == FineTier ? role.fine : role.coarse)
                .append({query.value(2).toLongLong(), query.value(4).toInt(),
                         query.value(6).toInt(), float(query.value(3).toDouble()),
                         float(query.value(5).toDouble())});
    }
    query.prepare(QStringLiteral(
            "SELECT time_ms, kind, role, age, holder, token, previous, gap,"
            " paused_by, reason FROM markers WHERE time_ms >= ? ORDER BY time_ms, id"));
    query.addBindValue(latest - TickHistory::RetentionMs);
    if (!query.exec())
        return fail();
    while (query.next()) {
        TickHistory::Marker m;
        m.time = QDateTime::fromMSecsSinceEpoch(query.value(0).toLongLong(), Qt::UTC);
        m.kind = TickHistory::Marker::Kind(
                std::clamp(query.value(1).toInt(), 0, int(TickHistory::Marker::Kind::Takeover)));
        m.role = query.value(2).toString();
        m.ageSeconds = query.value(3).toDouble();
        m.holderId = query.value(4).toString();
        m.token = query.value(5).toLongLong();
        m.previousHolderId = query.value(6).toString();
        if (!query.value(7).isNull())
            m.gapSeconds = query.value(7).toDouble();
        m.pausedBy = query.value(8).toString();
        m.reason = query.value(9).toString();
        saved->markers.append(std::move(m));
    }
    return true;
}

void HistoryWriter::open()
{
    // Checked first: without the driver every file would look unreadable and be moved aside.
    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
        stop(QStringLiteral("History is not kept this session: Qt's SQLite driver (QSQLITE) is not"
                            " installed; install libqt6sql6-sqlite."));
        return;
    }
    const QString directory = QFileInfo(m_filePath).absolutePath();
    if (!ensurePrivateDirectory(directory)) {
        stop(QStringLiteral("History is not kept this session: cannot create the directory %1 or"
                            " make it private (0700); check that it can be written.")
                     .arg(QDir::toNativeSeparators(directory)));
        return;
    }
    // What an older console made with the umask: SQLite keeps an existing -wal's or -shm's mode,
    // a former file taken over keeps its own.
    narrowFilesIn(directory);
    const bool merge = takeOverFormer();
    TickHistory::Saved saved;
    QString error;
    const bool opened = openFile(&error);
    if (opened && merge)
        mergeFormer();
    if (!opened || !load(&saved, &error)) {
        close();
        saved = {};
        m_latestMs.reset();
        const QString file = QDir::toNativeSeparators(m_filePath);
        const QString aside
                = m_filePath + QStringLiteral(".bad-")
                  + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
        const bool exists = QFileInfo::exists(m_filePath);
        if (exists && !QFile::rename(m_filePath, aside)) {
            stop(QStringLiteral("History is not kept this session: %1 cannot be read (%2) nor "
                                "moved aside; delete it or check its permissions.")
                         .arg(file, error));
            return;
        }
        QFile::remove(m_filePath + QStringLiteral("-wal"));
        QFile::remove(m_filePath + QStringLiteral("-shm"));
        QString retryError;
        if (!openFile(&retryError)) {
            close();
            stop(QStringLiteral("History is not kept this session: %1 cannot be written (%2);"
                                " check the directory's permissions and free space.")
                         .arg(file, retryError));
            return;
        }
        if (exists) {
            report(QStringLiteral("History file %1 could not be read (%2): moved aside to %3, a "
                                  "fresh history started.")
                           .arg(file, error, QDir::toNativeSeparators(aside)));
        }
    }
    m_open = true;
    postTo(m_store, [store = m_store, saved] { store->loaded(saved); });
    trim();
}

// The former file becomes this one when there is none yet (with its WAL, which holds what its
// last session wrote); true when both exist and the former is to be merged once this one is open.
bool HistoryWriter::takeOverFormer()
{
    if (m_formerPath.isEmpty() || m_formerPath == m_filePath || !QFileInfo::exists(m_formerPath))
        return false;
    if (QFileInfo::exists(m_filePath))
        return true;
    for (const QString &suffix : SqliteSuffixes) {
        if (QFileInfo::exists(m_formerPath + suffix)
            && !QFile::rename(m_formerPath + suffix, m_filePath + suffix)) {
            report(QStringLiteral("History kept in %1 could not be moved to %2; it is not shown."
                                  " Check the directory's permissions.")
                           .arg(QDir::toNativeSeparators(m_formerPath),
                                QDir::toNativeSeparators(m_filePath)));
            return false;
        }
    }
    return false;
}

void HistoryWriter::mergeFormer()
{
    QSqlDatabase db = database();
    QString error;
    {
        QSqlQuery attach(db);
        attach.prepare(QStringLiteral("ATTACH DATABASE ? AS former"));
        attach.addBindValue(m_formerPath);
        if (!attach.exec())
            error = attach.lastError().text();
    }
    if (error.isEmpty()) {
        qint64 version = 0;
        if (!run(QStringLiteral("PRAGMA former.user_version"), {}, &version)
            || version != FormatVersion) {
            error = QStringLiteral("unknown format version %1").arg(version);
        } else if (!db.transaction()) {
            error = db.lastError().text();
        } else {
            for (int i = 0; i < int(std::size(MergeFormer)) && error.isEmpty(); ++i) {
                QString sql = QLatin1String(MergeFormer[i]);
                if (i == MergeBuckets)
                    sql += QLatin1String(BucketConflict);
                exec(sql, &error);
            }
            if (error.isEmpty() && !db.commit())
                error = db.lastError().text();
            if (!error.isEmpty())
                db.rollback();
        }
        QString detachError;
        exec(QStringLiteral("DETACH DATABASE former"), &detachError);
    }
    if (!error.isEmpty()) {
        report(QStringLiteral("History kept in %1 could not be added to %2 (%3); it is not shown."
                              " Delete it if it is not needed.")
                       .arg(QDir::toNativeSeparators(m_formerPath),
                            QDir::toNativeSeparators(m_filePath), error));
        return;
    }
    for (const QString &suffix : SqliteSuffixes)
        QFile::remove(m_formerPath + suffix);
}

void HistoryWriter::write(const std::vector<HistoryStore::Row> &rows)
{
    if (!m_open)
        return;
    QSqlDatabase db = database();
    QString error;
    const auto step = [&](QSqlQuery &query) {
        if (query.exec())
            return true;
        error = query.lastError().text();
        return false;
    };
    const bool ok = [&] {
        if (!db.transaction()) {
            error = db.lastError().text();
            return false;
        }
        QSqlQuery role(db);
        QSqlQuery raw(db);
        QSqlQuery bucket(db);
        QSqlQuery marker(db);
        role.prepare(QStringLiteral("INSERT OR IGNORE INTO roles (name, ordinal)"
                                    " VALUES (?, (SELECT count(*) FROM roles))"));
        raw.prepare(
                QStringLiteral("INSERT OR REPLACE INTO raw (role, time_ms, age) VALUES (?, ?, ?)"));
        bucket.prepare(QLatin1String(UpsertBucket) + QLatin1String(BucketConflict));
        marker.prepare(QStringLiteral(
                "INSERT INTO markers (time_ms, kind, role, age, holder, token, previous, gap,"
                " paused_by, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        for (const HistoryStore::Row &row : rows) {
            if (row.kind == HistoryStore::Row::Kind::Marker) {
                const TickHistory::Marker &m = row.marker;
                for (const QVariant &value :
                     {QVariant(m.time.toMSecsSinceEpoch()), QVariant(int(m.kind)), QVariant(m.role),
                      QVariant(m.ageSeconds), textOrNull(m.holderId), QVariant(m.token),
                      textOrNull(m.previousHolderId),
                      m.gapSeconds ? QVariant(*m.gapSeconds) : QVariant(), textOrNull(m.pausedBy),
                      textOrNull(m.reason)}) {
                    marker.addBindValue(value);
                }
                if (!step(marker))
                    return false;
                continue;
            }
            role.addBindValue(row.role);
            if (!step(role))
                return false;
            if (row.kind == HistoryStore::Row::Kind::Role)
                continue;
            raw.addBindValue(row.role);
            raw.addBindValue(row.timeMs);
            raw.addBindValue(double(row.age));
            if (!step(raw))
                return false;
            for (const auto &[tier, bucketMs] :
                 {std::pair{FineTier, TickHistory::FineBucketMs},
                  std::pair{CoarseTier, TickHistory::CoarseBucketMs}}) {
                const qint64 start = bucketStart(row.timeMs, bucketMs);
                const int offset = int(row.timeMs - start);
                for (const QVariant &value : {QVariant(tier), QVariant(row.role), QVariant(start),
                                              QVariant(double(row.age)), QVariant(offset),
                                              QVariant(double(row.age)), QVariant(offset)}) {
                    bucket.addBindValue(value);
                }
                if (!step(bucket))
                    return false;
            }
            m_latestMs = std::max(m_latestMs.value_or(row.timeMs), row.timeMs);
        }
        // The finer tiers are decimated as TickHistory decimates them: raw samples for 15 min,
        // 10 s buckets for 2 h; the 2 min buckets stay for the retention (trim()).
        if (m_latestMs) {
            QSqlQuery decimate(db);
            decimate.prepare(QStringLiteral("DELETE FROM raw WHERE time_ms < ?"));
            decimate.addBindValue(*m_latestMs - TickHistory::RawRetentionMs);
            if (!step(decimate))
                return false;
            decimate.prepare(
                    QStringLiteral("DELETE FROM buckets WHERE tier = ? AND start_ms + ? <= ?"));
            decimate.addBindValue(FineTier);
            decimate.addBindValue(TickHistory::FineBucketMs);
            decimate.addBindValue(*m_latestMs - TickHistory::FineRetentionMs);
            if (!step(decimate))
                return false;
        }
        if (db.commit())
            return true;
        error = db.lastError().text();
        return false;
    }();
    if (!ok) {
        db.rollback();
        db = QSqlDatabase(); // close() removes the connection: no handle may be left
        close();
        stop(QStringLiteral("History is not kept for the rest of this session: writing %1 failed"
                            " (%2); check the disk, or delete the file to start afresh.")
                     .arg(QDir::toNativeSeparators(m_filePath), error));
        return;
    }
    m_store->m_lastWriteThread.store(QThread::currentThreadId());
    const int count = int(rows.size());
    postTo(m_store, [store = m_store, count] { Q_EMIT store->batchWritten(count); });
    if (++m_batches % HistoryStore::TrimEveryBatches == 0)
        trim();
}

// Deletes the oldest eighth of what the oldest tier holds; false when there was nothing to delete.
bool HistoryWriter::run(const QString &sql, const QVariantList &values, qint64 *firstValue)
{
    QSqlQuery query(database());
    if (!query.prepare(sql))
        return false;
    for (const QVariant &value : values)
        query.addBindValue(value);
    if (!query.exec())
        return false;
    if (firstValue)
        *firstValue = query.next() ? query.value(0).toLongLong() : 0;
    // To the end: a statement left unfinished would keep a read transaction open under the
    // checkpoint.
    while (query.next()) {
    }
    return true;
}

bool HistoryWriter::trimOldest()
{
    struct Tier
    {
        const char *count;
        const char *cutoff;
        const char *remove;
    };
    static const Tier tiers[] = {
            {"SELECT count(*) FROM buckets WHERE tier = 2",
             "SELECT start_ms FROM buckets WHERE tier = 2 ORDER BY start_ms LIMIT 1 OFFSET ?",
             "DELETE FROM buckets WHERE tier = 2 AND start_ms <= ?"},
            {"SELECT count(*) FROM markers",
             "SELECT time_ms FROM markers ORDER BY time_ms LIMIT 1 OFFSET ?",
             "DELETE FROM markers WHERE time_ms <= ?"},
            {"SELECT count(*) FROM buckets WHERE tier = 1",
             "SELECT start_ms FROM buckets WHERE tier = 1 ORDER BY start_ms LIMIT 1 OFFSET ?",
             "DELETE FROM buckets WHERE tier = 1 AND start_ms <= ?"},
            {"SELECT count(*) FROM raw",
             "SELECT time_ms FROM raw ORDER BY time_ms LIMIT 1 OFFSET ?",
             "DELETE FROM raw WHERE time_ms <= ?"},
    };
    for (const Tier &tier : tiers) {
        qint64 count = 0;
        if (!run(QLatin1String(tier.count), {}, &count))
            return false;
        if (count == 0)
            continue;
        qint64 cutoff = 0;
        return run(QLatin1String(tier.cutoff), {count / 8}, &cutoff)
               && run(QLatin1String(tier.remove), {cutoff});
    }
    return false;
}

// Gives the free pages back to the file system. QSQLITE steps a statement that returns no
// columns once, and incremental_vacuum frees one page per step: so one step per free page, in
// one transaction.
void HistoryWriter::vacuum()
{
    const qint64 freePages = pragma("freelist_count");
    if (freePages == 0)
        return;
    QSqlDatabase db = database();
    if (!db.transaction())
        return;
    {
        QSqlQuery query(db);
        if (query.prepare(QStringLiteral("PRAGMA incremental_vacuum"))) {
            for (qint64 i = 0; i < freePages; ++i) {
                if (!query.exec())
                    break;
            }
        }
    }
    db.commit();
}

void HistoryWriter::trim()
{
    if (!m_open)
        return;
    if (m_latestMs) {
        // The retention counts back from the latest sample: the database's clock, not this one.
        const qint64 cutoff = *m_latestMs - m_retentionMs;
        run(QStringLiteral("DELETE FROM buckets WHERE tier = ? AND start_ms + ? <= ?"),
            {CoarseTier, TickHistory::CoarseBucketMs, cutoff});
        run(QStringLiteral("DELETE FROM markers WHERE time_ms < ?"), {cutoff});
    }
    // Over the bound, down to 90 % of it, so that the next batches do not trim again at once.
    if (usedBytes() > m_maxBytes) {
        while (usedBytes() > m_maxBytes * 9 / 10 && trimOldest()) {
        }
    }
    vacuum();
    run(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
    const qint64 bytes
            = QFileInfo(m_filePath).size() + QFileInfo(m_filePath + QStringLiteral("-wal")).size();
    postTo(m_store, [store = m_store, bytes] { Q_EMIT store->trimmed(bytes); });
}

void HistoryWriter::close()
{
    m_open = false;
    if (!QSqlDatabase::contains(m_connectionName))
        return;
    database().close();
    QSqlDatabase::removeDatabase(m_connectionName);
}

void HistoryWriter::stop(const QString &message)
{
    m_open = false;
    postTo(m_store, [store = m_store, message] { store->writerStopped(message); });
}

void HistoryWriter::report(const QString &message)
{
    postTo(m_store, [store = m_store, message] {
        qWarning("%s", qPrintable(message));
        Q_EMIT store->problem(message);
    });
}

HistorySettings HistorySettings::load()
{
    QSettings settings;
    HistorySettings s;
    s.keep = settings.value(QStringLiteral("history/keep"), true).toBool();
    s.retentionDays = std::clamp(
            settings.value(QStringLiteral("history/retentionDays"), DefaultRetentionDays).toInt(),
            1, 365);
    s.maxMegabytes = std::clamp(
            settings.value(QStringLiteral("history/maxMegabytes"), DefaultMaxMegabytes).toInt(), 1,
            100 * 1024);
    return s;
}

void HistorySettings::save() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("history/keep"), keep);
    settings.setValue(QStringLiteral("history/retentionDays"), retentionDays);
    settings.setValue(QStringLiteral("history/maxMegabytes"), maxMegabytes);
}

HistoryStore::HistoryStore(const HistoryKey &key, qint64 retentionMs, qint64 maxBytes,
                           QObject *parent)
    : QObject(parent)
    , m_filePath(filePathOf(key.key))
{
    m_writer = new HistoryWriter(this, m_filePath,
                                 key.formerKey.isEmpty() ? QString() : filePathOf(key.formerKey),
                                 retentionMs, maxBytes);
    m_writer->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_writer, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("history-writer"));
    m_thread.start();
    postTo(m_writer, &HistoryWriter::open);
    m_batchTimer.setInterval(BatchIntervalMs);
    connect(&m_batchTimer, &QTimer::timeout, this, &HistoryStore::sendBatch);
    m_batchTimer.start();
}

HistoryStore::HistoryStore(const HistoryKey &key, const HistorySettings &settings, QObject *parent)
    : HistoryStore(key, settings.retentionMs(), settings.maxBytes(), parent)
{}

HistoryStore::~HistoryStore()
{
    sendBatch();
    // Blocking: quit() alone would drop the batches still queued. The writer never waits for
    // this thread, so this cannot deadlock.
    QMetaObject::invokeMethod(
            m_writer, [writer = m_writer] { writer->close(); }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
}

QString HistoryStore::keyFor(const ConnectionProfile &profile)
{
    return readableKey(profile.user + QLatin1Char('@') + profile.host + QLatin1Char('-')
                       + profile.portList() + QLatin1Char('-') + profile.database);
}

QString HistoryStore::keyFor(const DatabaseIdentity &identity)
{
    if (!identity.isValid())
        return {};
    const QString server = identity.systemIdentifier.isEmpty()
                                   ? QStringLiteral("at-") + identity.serverAddress
                                   : QStringLiteral("system-") + identity.systemIdentifier;
    return readableKey(identity.database + QLatin1Char('-') + server);
}

HistoryKey HistoryStore::keyFor(const DatabaseIdentity &identity, const ConnectionProfile &openedAs)
{
    if (!identity.isValid())
        return keyFor(openedAs);
    HistoryKey key(keyFor(identity));
    key.formerKey = keyFor(openedAs);
    return key;
}

QString HistoryStore::readableKey(const QString &target)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9@._-]+"));
    QString readable = target;
    readable.replace(unsafe, QStringLiteral("_"));
    const QByteArray hash = QCryptographicHash::hash(target.toUtf8(), QCryptographicHash::Sha256);
    return readable.left(80) + QLatin1Char('-') + QString::fromLatin1(hash.toHex().left(8));
}

QString HistoryStore::filePathOf(const QString &key)
{
    return directory() + QLatin1Char('/') + key + QStringLiteral(".sqlite");
}

QString HistoryStore::directory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
           + QStringLiteral("/history");
}

void HistoryStore::record(const StatusSnapshot &snapshot, const QList<HolderChange> &changes)
{
    if (!m_keeping)
        return;
    const quint64 serial = m_markerFinder.markerSerial();
    m_markerFinder.append(snapshot, changes);
    for (const TickHistory::Marker &marker : m_markerFinder.markersSince(serial))
        m_pending.push_back({Row::Kind::Marker, marker.role, 0, 0, marker});
    if (snapshot.databaseTime.isValid()) {
        const qint64 timeMs = snapshot.databaseTime.toMSecsSinceEpoch();
        if (!m_lastMs || timeMs > *m_lastMs) {
            m_lastMs = timeMs;
            for (const RoleStatus &status : snapshot.roles) {
                if (status.lastTickAgeSeconds) {
                    m_pending.push_back({Row::Kind::Sample,
                                         status.role,
                                         timeMs,
                                         float(*status.lastTickAgeSeconds),
                                         {}});
                } else {
                    m_pending.push_back({Row::Kind::Role, status.role, timeMs, 0, {}});
                }
            }
        }
    }
    if (m_pending.size() >= size_t(BatchSamples))
        sendBatch();
}

void HistoryStore::flush()
{
    sendBatch();
}

void HistoryStore::setBounds(qint64 retentionMs, qint64 maxBytes)
{
    postTo(m_writer, [writer = m_writer, retentionMs, maxBytes] {
        writer->setBounds(retentionMs, maxBytes);
    });
}

void HistoryStore::trimNow()
{
    sendBatch();
    postTo(m_writer, &HistoryWriter::trim);
}

void HistoryStore::sendBatch()
{
    if (m_pending.empty() || !m_keeping)
        return;
    postTo(m_writer, [writer = m_writer, rows = std::move(m_pending)] { writer->write(rows); });
    m_pending.clear();
}

void HistoryStore::loaded(const TickHistory::Saved &saved)
{
    m_markerFinder.restore(saved);
    Q_EMIT restored(saved);
}

void HistoryStore::writerStopped(const QString &message)
{
    m_keeping = false;
    m_pending.clear();
    m_batchTimer.stop();
    qWarning("%s", qPrintable(message));
    Q_EMIT problem(message);
}

} // namespace leader::console
