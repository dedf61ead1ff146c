#pragma once

#include "core/holderchange.h"
#include "core/statustypes.h"
#include "core/timerule.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>

#include <deque>
#include <optional>

namespace leader::console {

// The spans of time the chart and the holder timeline show, ending at the latest database time.
enum class HistoryWindow { FiveMinutes, OneHour, Day };

qint64 historyWindowMs(HistoryWindow window);
QString historyWindowName(HistoryWindow window);

// What a TickHistory keeps of each role's rows: its last_tick_age (the "Last tick age" tab), or the
// pending count its backlog source reports (the "Backlog" tab; extension 0186, docs/backlog.md).
enum class HistoryValue { LastTickAge, BacklogPending };

// The value of status a history of that kind keeps; nullopt when the row has none (a role that
// never ticked, a role without a backlog source or whose source failed this poll).
std::optional<double> historyValueOf(HistoryValue value, const RoleStatus &status);

// Each role's value (its last_tick_age, or its backlog's pending count: HistoryValue) over the last
// 24 h of database time, plus pause, unpause and takeover markers. A takeover is a new holder after
// one that did not finish its tick (it died, froze or lost the lease); a new holder after a
// finished tick is ordinary rotation between replicas and gets no marker, or a busy day would be
// all triangles. Memory is bounded whatever the poll rate: raw samples are kept for a few minutes
// only, older data lives in min/max buckets (10 s for 2 h, 2 min for 24 h), so a stall survives as
// a peak at every resolution instead of being averaged away. A backlog history holds only the roles
// that have had a source, so a role without one draws no line; its values are kept as floats, exact
// up to 2^24 pending items. HistoryStore saves an age history only: the backlog's starts again with
// each session.
class TickHistory final
{
public:
    using Window = HistoryWindow;

    struct Marker
    {
        enum class Kind { Pause, Unpause, Takeover };

        Kind kind = Kind::Pause;
        QString role;
        QDateTime time; // database clock
        // The role's value then (its last_tick_age, or in a backlog history its pending count), so
        // the marker sits on its line. The name is HistoryStore's column's.
        double ageSeconds = 0;
        QString holderId;                 // Takeover: the new holder
        qint64 token = 0;                 // Takeover: the new token
        QString previousHolderId;         // Takeover
        std::optional<double> gapSeconds; // Takeover: previous holder's end to the acquisition
        QString pausedBy;                 // Pause
        QString reason;                   // Pause

        QString describe(TimeZoneMode zone = TimeZoneMode::Local) const;
    };

    static constexpr qint64 RawRetentionMs = 15 * 60 * 1000;
    static constexpr qint64 FineBucketMs = 10 * 1000;
    static constexpr qint64 FineRetentionMs = 2 * 60 * 60 * 1000;
    static constexpr qint64 CoarseBucketMs = 2 * 60 * 1000;
    static constexpr qint64 RetentionMs = 24 * 60 * 60 * 1000;
    // Raw samples beyond this per role are dropped even if younger than RawRetentionMs, so a
    // runaway poll rate cannot grow memory (15 min at 2 samples/s).
    static constexpr int MaxRawSamples = 1800;
    static constexpr int MaxMarkers = 20000;

    // A history as saved on disk (HistoryStore): each role's tiers exactly as they are kept here,
    // so restoring them gives back the same min/max per bucket.
    struct SavedSample
    {
        qint64 timeMs = 0;
        float age = 0;
    };
    struct SavedBucket
    {
        qint64 startMs = 0;
        qint32 minOffsetMs = 0;
        qint32 maxOffsetMs = 0;
        float min = 0;
        float max = 0;
    };
    struct SavedRole
    {
        QString role;
        QList<SavedSample> raw; // time-ordered, like the buckets
        QList<SavedBucket> fine;
        QList<SavedBucket> coarse;
    };
    struct Saved
    {
        QList<SavedRole> roles; // in the order first seen
        QList<Marker> markers;  // in the order added
        bool isEmpty() const { return roles.isEmpty() && markers.isEmpty(); }
    };

    explicit TickHistory(HistoryValue value = HistoryValue::LastTickAge)
        : m_value(value)
    {}

    HistoryValue value() const { return m_value; }

    // Snapshots whose databaseTime is not after the latest one are ignored for samples (the
    // database clock is the only time axis; a reconnect to another database should clear()).
    // Takeover markers come from changes, the holder changes this snapshot's rows proved
    // (HolderChangeTracker): the history does not judge hand-overs itself.
    void append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes = {});
    void clear();
    // Adds a saved history from before this session. Restoring into an empty history gives back
    // the saved one; data the live polls already added wins over saved data for the same time, so
    // a restore that arrives after the first polls only fills in what came before them. A role's
    // pause state is taken from its last saved pause or unpause marker, so a role still paused
    // does not get a second pause marker from the next poll.
    void restore(const Saved &saved);
    // Counts every marker ever added; markersSince(serial) are the ones added after markerSerial()
    // returned serial (a HistoryStore saves them).
    quint64 markerSerial() const { return m_markerSerial; }
    QList<Marker> markersSince(quint64 serial) const;

    QStringList roles() const; // in the order first seen
    // What a backlog history's values of role count, as its source last named it ("due
    // subscriptions"); empty for an age history and an unknown role.
    QString unit(const QString &role) const;
    QDateTime latestTime() const;
    bool isEmpty() const { return !m_latestMs.has_value(); }

    // (x = msecs since epoch of the database time, y = the value), time-ordered, at most
    // maxPoints points, for the window ending at latestTime(). Each output bucket contributes its
    // minimum and its maximum, so peaks are kept.
    QList<QPointF> series(const QString &role, Window window, int maxPoints) const;
    // The largest value (age, or pending count) in the window for role, or nullopt if none.
    std::optional<double> maxAge(const QString &role, Window window) const;

    QList<Marker> markers(Window window) const;

    qsizetype approximateBytes() const;

private:
    struct Sample
    {
        qint64 timeMs;
        float value;
    };
    struct Bucket
    {
        qint64 startMs;
        qint32 minOffsetMs; // where in the bucket the minimum and maximum were seen
        qint32 maxOffsetMs;
        float min;
        float max;
    };
    struct RoleHistory
    {
        std::deque<Sample> raw;
        std::deque<Bucket> fine;
        std::deque<Bucket> coarse;
        bool paused = false;             // as last seen, for the pause and unpause markers
        std::optional<double> lastValue; // the last one seen: where the next marker sits
        QString unit;                    // a backlog's "what", as last seen
    };

    static void addToBuckets(std::deque<Bucket> &buckets, qint64 bucketMs, qint64 timeMs,
                             float value);
    static void trim(RoleHistory &history, qint64 latestMs);
    void detectPause(RoleHistory &history, const RoleStatus &status, qint64 nowMs);
    void addTakeover(const HolderChange &change);

    HistoryValue m_value = HistoryValue::LastTickAge;
    QStringList m_roleOrder;
    QHash<QString, RoleHistory> m_roles;
    std::deque<Marker> m_markers;
    std::optional<qint64> m_latestMs;
    quint64 m_markerSerial = 0;
};

} // namespace leader::console
