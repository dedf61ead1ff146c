#include "tickhistory.h"

#include "core/rolerecords.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace leader::console {

namespace {

// Source points of a window: raw samples, or each bucket's minimum and maximum in time order.
template<typename Visit>
void forEachSourcePoint(const auto &raw, const auto &buckets, bool useRaw, qint64 startMs,
                        Visit &&visit)
{
    if (useRaw) {
        auto it = std::lower_bound(raw.begin(), raw.end(), startMs,
                                   [](const auto &s, qint64 t) { return s.timeMs < t; });
        for (; it != raw.end(); ++it)
            visit(it->timeMs, double(it->value));
        return;
    }
    for (const auto &b : buckets) {
        const qint64 minT = b.startMs + b.minOffsetMs;
        const qint64 maxT = b.startMs + b.maxOffsetMs;
        if (std::max(minT, maxT) < startMs)
            continue;
        if (minT == maxT) {
            visit(maxT, double(b.max));
        } else if (minT < maxT) {
            if (minT >= startMs)
                visit(minT, double(b.min));
            visit(maxT, double(b.max));
        } else {
            if (maxT >= startMs)
                visit(maxT, double(b.max));
            visit(minT, double(b.min));
        }
    }
}

} // namespace

qint64 historyWindowMs(HistoryWindow window)
{
    switch (window) {
    case HistoryWindow::FiveMinutes:
        return 5 * 60 * 1000;
    case HistoryWindow::OneHour:
        return 60 * 60 * 1000;
    case HistoryWindow::Day:
        return 24 * 60 * 60 * 1000;
    }
    return 5 * 60 * 1000;
}

QString historyWindowName(HistoryWindow window)
{
    switch (window) {
    case HistoryWindow::FiveMinutes:
        return QCoreApplication::translate("leader::console::TickHistory", "5 min");
    case HistoryWindow::OneHour:
        return QCoreApplication::translate("leader::console::TickHistory", "1 h");
    case HistoryWindow::Day:
        return QCoreApplication::translate("leader::console::TickHistory", "24 h");
    }
    return {};
}

std::optional<double> historyValueOf(HistoryValue value, const RoleStatus &status)
{
    switch (value) {
    case HistoryValue::LastTickAge:
        return status.lastTickAgeSeconds;
    case HistoryValue::BacklogPending:
        if (status.backlog && status.backlog->pending)
            return double(*status.backlog->pending);
        return std::nullopt;
    }
    return std::nullopt;
}

QString TickHistory::Marker::describe(TimeZoneMode zone) const
{
    const QString when = TimeRule::full(time, zone);
    switch (kind) {
    case Kind::Pause:
        return QCoreApplication::translate("leader::console::TickHistory",
                                           "%1 paused at %2 by %3: %4")
                .arg(role, when, pausedBy.isEmpty() ? QStringLiteral("?") : pausedBy,
                     reason.isEmpty() ? QStringLiteral("-") : reason);
    case Kind::Unpause:
        return QCoreApplication::translate("leader::console::TickHistory", "%1 unpaused at %2")
                .arg(role, when);
    case Kind::Takeover: {
        const QString gap = gapSeconds ? QString::number(*gapSeconds, 'f', 1) + QStringLiteral(" s")
                                       : QStringLiteral("?");
        return QCoreApplication::translate("leader::console::TickHistory",
                                           "%1 taken over at %2 by %3 (token %4) from %5, "
                                           "gap %6")
                .arg(role, when, holderId)
                .arg(token)
                .arg(previousHolderId, gap);
    }
    }
    return {};
}

void TickHistory::append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes)
{
    const std::optional<qint64> newMs = advanceTo(snapshot, m_latestMs);
    if (!newMs)
        return;
    const qint64 nowMs = *newMs;

    const bool backlog = m_value == HistoryValue::BacklogPending;
    for (const RoleStatus &status : snapshot.roles) {
        // Every role has an age, if only "never ran"; a role enters a backlog history with its
        // source, and stays when a poll could not read the backlog (a gap in its line).
        if (backlog && !status.backlog && !m_roles.contains(status.role))
            continue;
        RoleHistory &history = recordFor(m_roles, m_roleOrder, status.role);
        if (backlog && status.backlog)
            history.unit = status.backlog->what;
        if (const std::optional<double> value = historyValueOf(m_value, status)) {
            history.lastValue = value;
            history.raw.push_back({nowMs, float(*value)});
            addToBuckets(history.fine, FineBucketMs, nowMs, float(*value));
            addToBuckets(history.coarse, CoarseBucketMs, nowMs, float(*value));
        }
        detectPause(history, status, nowMs);
    }
    for (const HolderChange &change : changes) {
        if (change.kind == HolderChangeKind::Takeover
            && (!backlog || m_roles.contains(change.role)))
            addTakeover(change);
    }
    for (RoleHistory &history : m_roles)
        trim(history, nowMs);

    const qint64 markerCutoff = nowMs - RetentionMs;
    while (!m_markers.empty()
           && (m_markers.size() > size_t(MaxMarkers)
               || m_markers.front().time.toMSecsSinceEpoch() < markerCutoff)) {
        m_markers.pop_front();
    }
}

void TickHistory::clear()
{
    m_roleOrder.clear();
    m_roles.clear();
    m_markers.clear();
    m_latestMs.reset();
}

void TickHistory::restore(const Saved &saved)
{
    std::optional<qint64> savedLatestMs;
    const auto seen = [&](qint64 timeMs) {
        savedLatestMs = std::max(savedLatestMs.value_or(timeMs), timeMs);
    };
    for (const SavedRole &role : saved.roles) {
        RoleHistory &history = recordFor(m_roles, m_roleOrder, role.role);
        // Saved data is older than anything the live polls added: it goes in front of it.
        const qint64 liveRawStart = history.raw.empty() ? std::numeric_limits<qint64>::max()
                                                        : history.raw.front().timeMs;
        for (auto s = role.raw.crbegin(); s != role.raw.crend(); ++s) {
            if (s->timeMs < liveRawStart)
                history.raw.push_front({s->timeMs, s->age});
            seen(s->timeMs);
        }
        const auto prepend = [&](std::deque<Bucket> &buckets, const QList<SavedBucket> &from) {
            const qint64 liveStart = buckets.empty() ? std::numeric_limits<qint64>::max()
                                                     : buckets.front().startMs;
            for (auto b = from.crbegin(); b != from.crend(); ++b) {
                if (b->startMs < liveStart)
                    buckets.push_front(
                            {b->startMs, b->minOffsetMs, b->maxOffsetMs, b->min, b->max});
                seen(b->startMs + std::max(b->minOffsetMs, b->maxOffsetMs));
            }
        };
        prepend(history.fine, role.fine);
        prepend(history.coarse, role.coarse);
        if (!history.lastValue && !role.raw.isEmpty())
            history.lastValue = double(role.raw.constLast().age);
    }

    std::deque<Marker> restored;
    for (const Marker &m : saved.markers) {
        const bool duplicate
                = std::any_of(m_markers.cbegin(), m_markers.cend(), [&](const Marker &l) {
                      return l.kind == m.kind && l.role == m.role && l.time == m.time;
                  });
        if (!duplicate)
            restored.push_back(m);
    }
    const bool live = m_latestMs.has_value();
    if (!live) {
        for (const Marker &m : restored) {
            if (m.kind == Marker::Kind::Takeover)
                continue;
            const auto it = m_roles.find(m.role);
            if (it != m_roles.end())
                it->paused = m.kind == Marker::Kind::Pause;
        }
    }
    m_markers.insert(m_markers.begin(), restored.begin(), restored.end());

    if (savedLatestMs && (!m_latestMs || *savedLatestMs > *m_latestMs))
        m_latestMs = savedLatestMs;
    if (!m_latestMs)
        return;
    for (RoleHistory &history : m_roles)
        trim(history, *m_latestMs);
    const qint64 markerCutoff = *m_latestMs - RetentionMs;
    std::erase_if(m_markers,
                  [&](const Marker &m) { return m.time.toMSecsSinceEpoch() < markerCutoff; });
    while (m_markers.size() > size_t(MaxMarkers))
        m_markers.pop_front();
}

QList<TickHistory::Marker> TickHistory::markersSince(quint64 serial) const
{
    const quint64 added = m_markerSerial > serial ? m_markerSerial - serial : 0;
    const auto count = std::min<size_t>(added, m_markers.size());
    return QList<Marker>(m_markers.end() - qsizetype(count), m_markers.end());
}

QStringList TickHistory::roles() const
{
    return m_roleOrder;
}

QString TickHistory::unit(const QString &role) const
{
    const auto it = m_roles.constFind(role);
    return it == m_roles.cend() ? QString() : it->unit;
}

QDateTime TickHistory::latestTime() const
{
    return m_latestMs ? QDateTime::fromMSecsSinceEpoch(*m_latestMs, Qt::UTC) : QDateTime();
}

void TickHistory::addToBuckets(std::deque<Bucket> &buckets, qint64 bucketMs, qint64 timeMs,
                               float value)
{
    const qint64 start = timeMs - (((timeMs % bucketMs) + bucketMs) % bucketMs);
    const auto offset = qint32(timeMs - start);
    if (buckets.empty() || buckets.back().startMs != start) {
        buckets.push_back({start, offset, offset, value, value});
        return;
    }
    Bucket &b = buckets.back();
    if (value < b.min) {
        b.min = value;
        b.minOffsetMs = offset;
    }
    if (value >= b.max) { // the latest of equal maxima, so a plateau's end is kept
        b.max = value;
        b.maxOffsetMs = offset;
    }
}

void TickHistory::trim(RoleHistory &history, qint64 latestMs)
{
    const qint64 rawCutoff = latestMs - RawRetentionMs;
    while (!history.raw.empty()
           && (history.raw.front().timeMs < rawCutoff
               || history.raw.size() > size_t(MaxRawSamples))) {
        history.raw.pop_front();
    }
    const qint64 fineCutoff = latestMs - FineRetentionMs;
    while (!history.fine.empty() && history.fine.front().startMs + FineBucketMs <= fineCutoff)
        history.fine.pop_front();
    const qint64 coarseCutoff = latestMs - RetentionMs;
    while (!history.coarse.empty()
           && history.coarse.front().startMs + CoarseBucketMs <= coarseCutoff) {
        history.coarse.pop_front();
    }
}

void TickHistory::detectPause(RoleHistory &history, const RoleStatus &status, qint64 nowMs)
{
    const double value = history.lastValue.value_or(0.0);
    const bool paused = status.state == RoleState::Paused || status.pausedAt.isValid();
    if (paused && !history.paused) {
        Marker m;
        m.kind = Marker::Kind::Pause;
        m.role = status.role;
        // pausedAt is the database's own record of the pause; the poll only saw it later.
        m.time = status.pausedAt.isValid() ? status.pausedAt.toUTC()
                                           : QDateTime::fromMSecsSinceEpoch(nowMs, Qt::UTC);
        m.ageSeconds = value;
        m.pausedBy = status.pausedBy;
        m.reason = status.pauseReason;
        m_markers.push_back(std::move(m));
        ++m_markerSerial;
    } else if (!paused && history.paused) {
        Marker m;
        m.kind = Marker::Kind::Unpause;
        m.role = status.role;
        m.time = QDateTime::fromMSecsSinceEpoch(nowMs, Qt::UTC);
        m.ageSeconds = value;
        m_markers.push_back(std::move(m));
        ++m_markerSerial;
    }
    history.paused = paused;
}

void TickHistory::addTakeover(const HolderChange &change)
{
    Marker m;
    m.kind = Marker::Kind::Takeover;
    m.role = change.role;
    m.time = change.acquiredAt.toUTC();
    const auto it = m_roles.constFind(change.role);
    m.ageSeconds = it != m_roles.cend() ? it->lastValue.value_or(0.0) : 0.0;
    m.holderId = change.newHolder;
    m.token = change.newToken;
    m.previousHolderId = change.previousHolder;
    m.gapSeconds = change.gapSeconds;
    m_markers.push_back(std::move(m));
    ++m_markerSerial;
}

QList<QPointF> TickHistory::series(const QString &role, Window window, int maxPoints) const
{
    QList<QPointF> out;
    const auto it = m_roles.constFind(role);
    if (it == m_roles.cend() || !m_latestMs || maxPoints <= 0)
        return out;
    const RoleHistory &history = *it;
    const qint64 windowMs = historyWindowMs(window);
    const qint64 startMs = *m_latestMs - windowMs;
    const bool useRaw = windowMs <= RawRetentionMs;
    const auto &buckets = windowMs <= FineRetentionMs ? history.fine : history.coarse;

    qsizetype count = 0;
    forEachSourcePoint(history.raw, buckets, useRaw, startMs, [&](qint64, double) { ++count; });
    if (count <= maxPoints) {
        out.reserve(count);
        forEachSourcePoint(history.raw, buckets, useRaw, startMs,
                           [&](qint64 t, double v) { out.append(QPointF(double(t), v)); });
        return out;
    }

    // Min/max per output bucket: at most two points each, emitted in time order.
    const int outBuckets = std::max(1, maxPoints / 2);
    struct Extremes
    {
        qint64 minT = 0;
        qint64 maxT = 0;
        double min = std::numeric_limits<double>::infinity();
        double max = -std::numeric_limits<double>::infinity();
    };
    QList<Extremes> extremes(outBuckets);
    forEachSourcePoint(history.raw, buckets, useRaw, startMs, [&](qint64 t, double v) {
        const auto index = std::clamp<qint64>(
                (t - startMs) * outBuckets / std::max<qint64>(1, windowMs), 0, outBuckets - 1);
        Extremes &e = extremes[index];
        if (v < e.min) {
            e.min = v;
            e.minT = t;
        }
        if (v >= e.max) {
            e.max = v;
            e.maxT = t;
        }
    });
    out.reserve(maxPoints);
    for (const Extremes &e : std::as_const(extremes)) {
        if (e.max < e.min)
            continue; // empty
        if (maxPoints == 1 || e.minT == e.maxT) {
            out.append(QPointF(double(e.maxT), e.max));
        } else if (e.minT < e.maxT) {
            out.append(QPointF(double(e.minT), e.min));
            out.append(QPointF(double(e.maxT), e.max));
        } else {
            out.append(QPointF(double(e.maxT), e.max));
            out.append(QPointF(double(e.minT), e.min));
        }
    }
    return out;
}

std::optional<double> TickHistory::maxAge(const QString &role, Window window) const
{
    const auto it = m_roles.constFind(role);
    if (it == m_roles.cend() || !m_latestMs)
        return std::nullopt;
    const qint64 windowMs = historyWindowMs(window);
    const auto &buckets = windowMs <= FineRetentionMs ? it->fine : it->coarse;
    std::optional<double> result;
    forEachSourcePoint(it->raw, buckets, windowMs <= RawRetentionMs, *m_latestMs - windowMs,
                       [&](qint64, double v) { result = std::max(result.value_or(v), v); });
    return result;
}

QList<TickHistory::Marker> TickHistory::markers(Window window) const
{
    QList<Marker> out;
    if (!m_latestMs)
        return out;
    const QDateTime start
            = QDateTime::fromMSecsSinceEpoch(*m_latestMs - historyWindowMs(window), Qt::UTC);
    for (const Marker &m : m_markers) {
        if (m.time >= start)
            out.append(m);
    }
    return out;
}

qsizetype TickHistory::approximateBytes() const
{
    // std::deque allocates 512-byte blocks; count one spare block per deque.
    constexpr qsizetype DequeSlack = 512;
    qsizetype bytes = sizeof(*this);
    for (auto it = m_roles.cbegin(); it != m_roles.cend(); ++it) {
        bytes += sizeof(RoleHistory) + (it.key().size() + it->unit.size()) * 2 + 64;
        bytes += qsizetype(it->raw.size() * sizeof(Sample)) + DequeSlack;
        bytes += qsizetype((it->fine.size() + it->coarse.size()) * sizeof(Bucket)) + 2 * DequeSlack;
    }
    for (const Marker &m : m_markers) {
        bytes += sizeof(Marker)
                 + 2
                           * (m.role.size() + m.holderId.size() + m.previousHolderId.size()
                              + m.pausedBy.size() + m.reason.size());
    }
    return bytes + DequeSlack;
}

} // namespace leader::console
