#pragma once

#include "core/holderchange.h"
#include "core/statustypes.h"
#include "core/timerule.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <deque>
#include <optional>

namespace leader::console {

// Who held each role when, on the database clock, built from leader_status polls: one row per
// span (one holder, one fencing token). Consecutive polls showing the same token extend the span;
// where the holder changed, the span says how: a handover, a takeover, a pause, or unknown, as the
// caller's HolderChangeTracker classified it (one classification per poll for the whole window).
// Spans older than 24 h are dropped.
class HolderTimeline final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HolderTimeline)

public:
    enum Column {
        RoleColumn,
        HolderColumn,
        TokenColumn,
        FromColumn,
        ToColumn,
        DurationColumn,
        GapBeforeColumn,
        ColumnCount
    };

    // Qt::UserRole on any column gives the raw value (QDateTime, qint64, double; null if none).
    // FailoverRole: the span began with a takeover. ChangeRole: how the holder changed
    // (holderChangeKindName), null when it did not.
    enum DataRole { OpenRole = Qt::UserRole + 1, FailoverRole, ChangeRole };

    struct Span
    {
        QString role;
        QString holderId;
        qint64 token = 0;
        QDateTime from; // acquired_at (database clock)
        // While open: the last poll that saw it. Once closed: where the holder stopped, i.e. the
        // tick's end if it finished it, the pause, else its last heartbeat (expires_at - TTL).
        QDateTime to;
        // from and to in msecs since the epoch, for painting a day of spans without converting.
        qint64 fromMs = 0;
        qint64 toMs = 0;
        bool open = true;
        // From the previous span's end of the same role; nullopt for a role's first span.
        std::optional<double> gapBeforeSeconds;
        // How the role came to this holder from another; nullopt for the same holder's next tick
        // and for a role's first span.
        std::optional<HolderChangeKind> change;
        bool failover = false; // change is a takeover: the previous lease expired unreleased
        QString previousHolderId;

        double durationSeconds() const { return from.msecsTo(to) / 1000.0; }
    };

    static constexpr qint64 RetentionMs = 24 * 60 * 60 * 1000;
    static constexpr int MaxSpans = 200000; // a bound even if every poll sees a new token

    explicit HolderTimeline(QObject *parent = nullptr);
    ~HolderTimeline() override;

    // Snapshots not after the latest database time are ignored. changes: what the caller's
    // HolderChangeTracker made of this snapshot (it skips the same stale snapshots).
    void append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes);
    void clear();

    QStringList roles() const; // in the order first seen
    QDateTime latestTime() const;
    int spanCount() const { return int(m_spans.size()); }
    const Span &span(int row) const { return m_spans.at(size_t(row)); }
    QList<Span> spansFor(const QString &role) const;
    // The role's spans that overlap [from, to], in time order.
    QList<Span> spansFor(const QString &role, const QDateTime &from, const QDateTime &to) const;
    // The same without copying: visit(const Span &) for each. With resolutionMs (a pixel's worth
    // of time), spans lying wholly within resolutionMs after a visited span's end are skipped, so
    // painting a day of short ticks costs a few visits per pixel, not one per tick.
    template<typename Visit>
    void forEachSpan(const QString &role, const QDateTime &from, const QDateTime &to, Visit &&visit,
                     qint64 resolutionMs = 0) const;

    // Times in the rule's zone, named in the headers; null: local time. Not owned.
    void setTimeRule(const TimeRule *rule);
    TimeZoneMode zone() const { return m_timeRule.zone(); }

    // Holder ids shown by name (the demo's hosted replicas: "r2"), the full id beside it in the
    // tooltips; ids never named are shown as they are. Names add up rather than replace: a
    // restarted replica's new holder id joins the old one, whose spans keep the name. clear()
    // forgets them.
    void addHolderNames(const QHash<QString, QString> &holderIdToName);
    QString holderName(const QString &holderId) const; // the name, else the id itself
    // "r2 (vm:29601:7014df0c)" for a named holder, else the id.
    QString holderText(const QString &holderId) const;

    static QString formatSeconds(double seconds); // "9.8 s", "2 min 5 s"
    // How the role came to the span's holder, one line; empty when the holder did not change.
    QString changeText(const Span &span) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // Once per append() that changed anything, after the row signals, and when the time rule
    // changed: views repaint on it.
    void updated();

private:
    struct RoleState
    {
        std::deque<qint64> seqs; // the role's spans, as sequence numbers, oldest first
        // Each of those spans' to, in msecs: forEachSpan() searches these, not QDateTimes.
        std::deque<qint64> endsMs;
        qint64 openSeq = -1;
        qint64 lastHeartbeatMs = 0;
        qint64 lastSeenMs = 0;
    };

    Span &spanBySeq(qint64 seq) { return m_spans[size_t(seq - m_firstSeq)]; }
    const Span &spanBySeq(qint64 seq) const { return m_spans[size_t(seq - m_firstSeq)]; }
    void closeOpenSpan(RoleState &state, const RoleStatus &status);
    void emitSpanChanged(qint64 seq, int firstColumn, int lastColumn);
    void timeRuleChanged();
    void prune(qint64 latestMs);

    std::deque<Span> m_spans;
    qint64 m_firstSeq = 0;
    QStringList m_roleOrder;
    QHash<QString, RoleState> m_roles;
    std::optional<qint64> m_latestMs;
    TimeRuleBinding m_timeRule;
    QHash<QString, QString> m_holderNames;
    static constexpr qsizetype MaxInternedHolders = 4096;
    QSet<QString> m_holderIds; // the spans' holder ids, interned
};

template<typename Visit>
void HolderTimeline::forEachSpan(const QString &role, const QDateTime &from, const QDateTime &to,
                                 Visit &&visit, qint64 resolutionMs) const
{
    const auto it = m_roles.constFind(role);
    if (it == m_roles.cend())
        return;
    const std::deque<qint64> &ends = it->endsMs;
    const qint64 toMs = to.toMSecsSinceEpoch();
    // A role's spans follow each other in time, so their ends are sorted.
    auto endIt = std::lower_bound(ends.cbegin(), ends.cend(), from.toMSecsSinceEpoch());
    while (endIt != ends.cend()) {
        const Span &span = spanBySeq(it->seqs[size_t(endIt - ends.cbegin())]);
        if (span.fromMs > toMs)
            break;
        visit(span);
        const qint64 endMs = *endIt;
        ++endIt;
        if (resolutionMs <= 0)
            continue;
        // Skip the spans that end within resolutionMs of this one, but keep the last of them:
        // it is the one a visible gap after them starts from. They are a few dozen at most for
        // a pixel of a day: gallop to them rather than search the rest of the day.
        const qint64 skipTo = endMs + resolutionMs;
        auto low = endIt;
        qsizetype step = 1;
        while (ends.cend() - low > step && *(low + step) < skipTo) {
            low += step;
            step *= 2;
        }
        const auto high = ends.cend() - low > step ? low + step + 1 : ends.cend();
        const auto next = std::lower_bound(low, high, skipTo);
        if (next - endIt > 1)
            endIt = next - 1;
    }
}

} // namespace leader::console
