#include "holdertimeline.h"

#include "core/leasefacts.h"
#include "core/rolerecords.h"
#include "models/plaintext.h"

#include <QSet>

#include <algorithm>
#include <cmath>

namespace leader::console {

HolderTimeline::HolderTimeline(QObject *parent)
    : QAbstractTableModel(parent)
{}

HolderTimeline::~HolderTimeline() = default;

void HolderTimeline::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void HolderTimeline::timeRuleChanged()
{
    Q_EMIT headerDataChanged(Qt::Horizontal, FromColumn, ToColumn);
    if (!m_spans.empty()) {
        const int last = rowCount() - 1;
        Q_EMIT dataChanged(index(0, FromColumn), index(last, ToColumn),
                           {Qt::DisplayRole, Qt::ToolTipRole});
        // Every cell's tooltip names the span's times.
        Q_EMIT dataChanged(index(0, RoleColumn), index(last, TokenColumn), {Qt::ToolTipRole});
        Q_EMIT dataChanged(index(0, DurationColumn), index(last, GapBeforeColumn),
                           {Qt::ToolTipRole});
    }
    Q_EMIT updated();
}

void HolderTimeline::append(const StatusSnapshot &snapshot, const QList<HolderChange> &changes)
{
    const std::optional<qint64> newMs = advanceTo(snapshot, m_latestMs);
    if (!newMs)
        return;
    const qint64 nowMs = *newMs;
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(nowMs, Qt::UTC);

    bool changed = false;
    for (const RoleStatus &status : snapshot.roles) {
        RoleState &state = recordFor(m_roles, m_roleOrder, status.role);
        const bool held = !status.holderId.isEmpty();
        const qint64 heartbeatMs
                = status.expiresInSeconds
                          ? nowMs + qint64(std::llround(*status.expiresInSeconds * 1000.0))
                                    - leaseTtlMs()
                          : 0;

        if (state.openSeq >= 0) {
            Span &open = spanBySeq(state.openSeq);
            if (held && status.holderId == open.holderId && status.token == open.token) {
                open.to = now;
                open.toMs = nowMs;
                state.endsMs.back() = nowMs;
                state.lastSeenMs = nowMs;
                state.lastHeartbeatMs = heartbeatMs;
                emitSpanChanged(state.openSeq, ToColumn, DurationColumn);
                changed = true;
                continue;
            }
            closeOpenSpan(state, status);
            changed = true;
        }
        if (!held)
            continue;

        Span span;
        span.role = m_roleOrder.at(m_roleOrder.indexOf(status.role)); // shares the string
        // One string per holder id, shared by all its spans: the view compares them by pointer.
        // A bound, for a console left open across years of restarts: a fresh table only costs
        // the view a text comparison for the ids interned before it.
        if (m_holderIds.size() >= MaxInternedHolders)
            m_holderIds.clear();
        span.holderId = *m_holderIds.insert(status.holderId);
        span.token = status.token;
        span.from = status.acquiredAt.isValid() ? status.acquiredAt.toUTC() : now;
        span.to = std::max(span.from, now);
        span.fromMs = span.from.toMSecsSinceEpoch();
        span.toMs = span.to.toMSecsSinceEpoch();
        span.open = true;
        if (!state.seqs.empty()) {
            const Span &previous = spanBySeq(state.seqs.back());
            span.gapBeforeSeconds = std::max(0.0, previous.to.msecsTo(span.from) / 1000.0);
            span.previousHolderId = previous.holderId;
        }
        for (const HolderChange &change : changes) {
            if (change.role == status.role) {
                span.change = change.kind;
                span.failover = change.kind == HolderChangeKind::Takeover;
                span.previousHolderId = change.previousHolder;
            }
        }
        const int row = int(m_spans.size());
        beginInsertRows({}, row, row);
        m_spans.push_back(std::move(span));
        const qint64 seq = m_firstSeq + row;
        state.seqs.push_back(seq);
        state.endsMs.push_back(m_spans.back().toMs);
        state.openSeq = seq;
        state.lastSeenMs = nowMs;
        state.lastHeartbeatMs = heartbeatMs;
        endInsertRows();
        changed = true;
    }
    prune(nowMs);
    if (changed)
        Q_EMIT updated();
}

void HolderTimeline::closeOpenSpan(RoleState &state, const RoleStatus &status)
{
    Span &span = spanBySeq(state.openSeq);
    const qint64 fromMs = span.fromMs;
    qint64 endMs = state.lastSeenMs;
    const qint64 endedMs
            = status.lastTickEndedAt.isValid() ? status.lastTickEndedAt.toMSecsSinceEpoch() : -1;
    const qint64 pausedMs = status.pausedAt.isValid() ? status.pausedAt.toMSecsSinceEpoch() : -1;
    if (status.lastTickHolder == span.holderId && endedMs >= fromMs && endedMs <= *m_latestMs) {
        endMs = endedMs; // it finished its tick
    } else if (status.state == console::RoleState::Paused && pausedMs >= fromMs
               && pausedMs <= *m_latestMs) {
        endMs = pausedMs; // the pause took the lease from it
    } else if (state.lastHeartbeatMs > 0) {
        // It stopped without finishing: it died, froze or lost the lease at its last heartbeat.
        endMs = std::clamp(state.lastHeartbeatMs, fromMs, std::max(fromMs, state.lastSeenMs));
    }
    span.toMs = std::max(endMs, fromMs);
    span.to = QDateTime::fromMSecsSinceEpoch(span.toMs, Qt::UTC);
    state.endsMs.back() = span.toMs; // the open span is the role's last
    span.open = false;
    const qint64 seq = state.openSeq;
    state.openSeq = -1;
    emitSpanChanged(seq, ToColumn, DurationColumn);
}

void HolderTimeline::emitSpanChanged(qint64 seq, int firstColumn, int lastColumn)
{
    const int row = int(seq - m_firstSeq);
    Q_EMIT dataChanged(index(row, firstColumn), index(row, lastColumn));
}

void HolderTimeline::prune(qint64 latestMs)
{
    const QDateTime cutoff = QDateTime::fromMSecsSinceEpoch(latestMs - RetentionMs, Qt::UTC);
    size_t count = 0;
    while (count < m_spans.size()) {
        const Span &span = m_spans[count];
        if (span.open)
            break; // never drop a span a role state still points at
        if (span.to >= cutoff && m_spans.size() - count <= size_t(MaxSpans))
            break;
        ++count;
    }
    if (count == 0)
        return;
    beginRemoveRows({}, 0, int(count) - 1);
    m_spans.erase(m_spans.begin(), m_spans.begin() + qsizetype(count));
    m_firstSeq += qint64(count);
    for (RoleState &state : m_roles) {
        while (!state.seqs.empty() && state.seqs.front() < m_firstSeq) {
            state.seqs.pop_front();
            state.endsMs.pop_front();
        }
    }
    endRemoveRows();
}

void HolderTimeline::clear()
{
    beginResetModel();
    m_spans.clear();
    m_firstSeq = 0;
    m_roleOrder.clear();
    m_roles.clear();
    m_latestMs.reset();
    m_holderNames.clear();
    m_holderIds.clear();
    endResetModel();
    Q_EMIT updated();
}

QStringList HolderTimeline::roles() const
{
    return m_roleOrder;
}

QDateTime HolderTimeline::latestTime() const
{
    return m_latestMs ? QDateTime::fromMSecsSinceEpoch(*m_latestMs, Qt::UTC) : QDateTime();
}

QList<HolderTimeline::Span> HolderTimeline::spansFor(const QString &role) const
{
    QList<Span> out;
    const auto it = m_roles.constFind(role);
    if (it == m_roles.cend())
        return out;
    out.reserve(qsizetype(it->seqs.size()));
    for (const qint64 seq : it->seqs)
        out.append(spanBySeq(seq));
    return out;
}

QList<HolderTimeline::Span> HolderTimeline::spansFor(const QString &role, const QDateTime &from,
                                                     const QDateTime &to) const
{
    QList<Span> out;
    forEachSpan(role, from, to, [&out](const Span &span) { out.append(span); });
    return out;
}

void HolderTimeline::addHolderNames(const QHash<QString, QString> &holderIdToName)
{
    QSet<QString> renamed;
    for (auto it = holderIdToName.cbegin(); it != holderIdToName.cend(); ++it) {
        if (m_holderNames.value(it.key()) != it.value()) {
            m_holderNames.insert(it.key(), it.value());
            renamed.insert(it.key());
        }
    }
    if (renamed.isEmpty())
        return; // the usual case: the demo reports its replicas far more often than they change
    // One signal per run of rows that show a renamed holder: every cell's tooltip names the holder
    // and the previous one; the Holder cell shows it.
    const auto shows = [&renamed](const Span &span) {
        return renamed.contains(span.holderId) || renamed.contains(span.previousHolderId);
    };
    const int rows = rowCount();
    for (int first = 0; first < rows; ++first) {
        if (!shows(m_spans[size_t(first)]))
            continue;
        int last = first;
        while (last + 1 < rows && shows(m_spans[size_t(last + 1)]))
            ++last;
        Q_EMIT dataChanged(index(first, 0), index(last, ColumnCount - 1), {Qt::ToolTipRole});
        Q_EMIT dataChanged(index(first, HolderColumn), index(last, HolderColumn),
                           {Qt::DisplayRole});
        first = last;
    }
    Q_EMIT updated();
}

QString HolderTimeline::holderName(const QString &holderId) const
{
    return m_holderNames.value(holderId, holderId);
}

QString HolderTimeline::holderText(const QString &holderId) const
{
    const QString name = m_holderNames.value(holderId);
    return name.isEmpty() ? holderId : tr("%1 (%2)").arg(name, holderId);
}

QString HolderTimeline::changeText(const Span &span) const
{
    if (!span.change)
        return {};
    const QString gap = span.gapBeforeSeconds ? formatSeconds(*span.gapBeforeSeconds) : tr("?");
    const QString previous = holderText(span.previousHolderId);
    switch (*span.change) {
    case HolderChangeKind::Handover:
        return tr("Handover from %1 (released), %2 without a holder").arg(previous, gap);
    case HolderChangeKind::Takeover:
        return tr("Takeover from %1 after its lease expired unreleased: %2 from its last "
                  "heartbeat")
                .arg(previous, gap);
    case HolderChangeKind::Pause:
        return tr("After a pause ended the tick of %1").arg(previous);
    case HolderChangeKind::Unknown:
        break;
    }
    return tr("New holder after %1: the polls missed too much to tell handover from takeover")
            .arg(previous);
}

QString HolderTimeline::formatSeconds(double seconds)
{
    if (seconds < 60.0)
        return tr("%1 s").arg(seconds, 0, 'f', 1);
    const auto whole = qint64(std::llround(seconds));
    if (whole < 3600)
        return tr("%1 min %2 s").arg(whole / 60).arg(whole % 60);
    return tr("%1 h %2 min").arg(whole / 3600).arg((whole % 3600) / 60);
}

int HolderTimeline::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_spans.size());
}

int HolderTimeline::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HolderTimeline::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    // Database text in a tooltip shows as written, never as HTML.
    if (role == Qt::ToolTipRole)
        return plainToolTip(data(index, PlainToolTipRole));
    const Span &span = m_spans[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case RoleColumn:
            return span.role;
        case HolderColumn:
            return holderName(span.holderId);
        case TokenColumn:
            return span.token;
        case FromColumn:
            return TimeRule::clock(span.from, zone(), true);
        case ToColumn:
            return span.open ? tr("%1 (open)").arg(TimeRule::clock(span.to, zone(), true))
                             : TimeRule::clock(span.to, zone(), true);
        case DurationColumn:
            return formatSeconds(span.durationSeconds());
        case GapBeforeColumn:
            return span.gapBeforeSeconds ? formatSeconds(*span.gapBeforeSeconds) : QString();
        case ColumnCount:
            break;
        }
        break;
    case Qt::UserRole:
        switch (Column(index.column())) {
        case RoleColumn:
            return span.role;
        case HolderColumn:
            return span.holderId;
        case TokenColumn:
            return span.token;
        case FromColumn:
            return span.from;
        case ToColumn:
            return span.to;
        case DurationColumn:
            return span.durationSeconds();
        case GapBeforeColumn:
            return span.gapBeforeSeconds ? QVariant(*span.gapBeforeSeconds) : QVariant();
        case ColumnCount:
            break;
        }
        break;
    case PlainToolTipRole: {
        QString tip = tr("%1 held by %2, token %3\n%4 – %5 (%6)")
                              .arg(span.role, holderText(span.holderId))
                              .arg(span.token)
                              .arg(TimeRule::clock(span.from, zone(), true),
                                   TimeRule::clock(span.to, zone(), true),
                                   formatSeconds(span.durationSeconds()));
        if (span.change)
            tip += QLatin1Char('\n') + changeText(span);
        return tip;
    }
    case Qt::TextAlignmentRole:
        if (index.column() == TokenColumn || index.column() == DurationColumn
            || index.column() == GapBeforeColumn) {
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        }
        break;
    case OpenRole:
        return span.open;
    case ChangeRole:
        return span.change ? QVariant(holderChangeKindName(*span.change)) : QVariant();
    case FailoverRole:
        return span.failover;
    default:
        break;
    }
    return {};
}

QVariant HolderTimeline::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case RoleColumn:
        return tr("Role");
    case HolderColumn:
        return tr("Holder");
    case TokenColumn:
        return tr("Token");
    case FromColumn:
        return TimeRule::header(tr("From"), zone());
    case ToColumn:
        return TimeRule::header(tr("To"), zone());
    case DurationColumn:
        return tr("Duration");
    case GapBeforeColumn:
        return tr("Gap before");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace leader::console
