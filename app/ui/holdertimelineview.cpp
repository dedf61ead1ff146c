#include "holdertimelineview.h"

#include "core/leasefacts.h"
#include "models/plaintext.h"
#include "models/tones.h"

#include <QHelpEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QToolTip>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace leader::console {

namespace {

constexpr int AxisHeightExtra = 6;
constexpr int LaneGap = 4;
constexpr double HighlightWidth = 2.0;

QString gapLabel(const HolderTimeline::Span &span)
{
    switch (span.change.value_or(HolderChangeKind::Unknown)) {
    case HolderChangeKind::Takeover:
        return HolderTimeline::formatSeconds(span.gapBeforeSeconds.value_or(0));
    case HolderChangeKind::Pause:
        return HolderTimelineView::tr("paused");
    case HolderChangeKind::Handover:
    case HolderChangeKind::Unknown:
        break;
    }
    return QStringLiteral("?");
}

QString spanText(const HolderTimeline &model, const HolderTimeline::Span &span)
{
    const TimeZoneMode zone = model.zone();
    return HolderTimelineView::tr("%1\nholder %2\ntoken %3\n%4 – %5 (%6)%7")
            .arg(span.role, model.holderText(span.holderId))
            .arg(span.token)
            .arg(TimeRule::clock(span.from, zone, true), TimeRule::clock(span.to, zone, true),
                 HolderTimeline::formatSeconds(span.durationSeconds()),
                 span.open ? HolderTimelineView::tr(", open") : QString());
}

} // namespace

HolderTimelineView::HolderTimelineView(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent, false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

HolderTimelineView::~HolderTimelineView() = default;

void HolderTimelineView::setModel(HolderTimeline *model)
{
    if (m_model == model)
        return;
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (m_model) {
        // One repaint per poll is enough; update() coalesces anyway.
        connect(m_model, &HolderTimeline::updated, this, [this] { update(); });
        connect(m_model, &QAbstractItemModel::modelReset, this, [this] { update(); });
    }
    updateGeometry();
    update();
}

void HolderTimelineView::setWindow(Window window)
{
    if (m_window == window)
        return;
    m_window = window;
    update();
}

QColor HolderTimelineView::holderColor(const QString &holder, const QPalette &palette)
{
    // A numbered name (r1, replica-2) takes the colour of its number: a demo's or a fleet's few
    // replicas then never share one.
    static const QRegularExpression numbered(QStringLiteral("^[^:\\d]*(\\d{1,6})$"));
    const QRegularExpressionMatch match = numbered.match(holder);
    if (match.hasMatch())
        return roleColor(match.captured(1).toInt() - 1, palette);
    // FNV-1a, not qHash: qHash is seeded per process and the colours must not change per run.
    quint32 hash = 2166136261u;
    for (const QChar c : holder) {
        hash ^= c.unicode();
        hash *= 16777619u;
    }
    return roleColor(int(hash % quint32(roleColorCount())), palette);
}

int HolderTimelineView::laneHeight() const
{
    return fontMetrics().height() + 8;
}

QSize HolderTimelineView::sizeHint() const
{
    const int lanes = m_model ? std::max<qsizetype>(1, m_model->roles().size()) : 5;
    return {600,
            lanes * (laneHeight() + LaneGap) + 2 * fontMetrics().height() + AxisHeightExtra + 6};
}

QSize HolderTimelineView::minimumSizeHint() const
{
    return {200, laneHeight() + 2 * fontMetrics().height() + AxisHeightExtra + 2};
}

HolderTimelineView::Layout HolderTimelineView::layoutNow() const
{
    Layout layout;
    layout.laneHeight = laneHeight();
    int labelWidth = fontMetrics().horizontalAdvance(longestLeaseRole());
    if (m_model) {
        for (const QString &role : m_model->roles())
            labelWidth = std::max(labelWidth, fontMetrics().horizontalAdvance(role));
    }
    layout.labelWidth = labelWidth + 12;
    // The axis, then one line of legend.
    const int axisHeight = 2 * fontMetrics().height() + AxisHeightExtra + 2;
    layout.lanes = QRect(layout.labelWidth, 2, std::max(1, width() - layout.labelWidth - 8),
                         std::max(1, height() - axisHeight - 4));
    layout.end = m_model ? m_model->latestTime() : QDateTime();
    if (!layout.end.isValid())
        layout.end = QDateTime::currentDateTimeUtc();
    layout.start = layout.end.addMSecs(-historyWindowMs(m_window));
    return layout;
}

double HolderTimelineView::xFor(const Layout &layout, const QDateTime &time) const
{
    const double span = double(layout.start.msecsTo(layout.end));
    const double fraction = span > 0 ? double(layout.start.msecsTo(time)) / span : 0.0;
    return layout.lanes.left() + fraction * layout.lanes.width();
}

void HolderTimelineView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QPalette pal = palette();
    painter.fillRect(rect(), pal.color(QPalette::Base));
    const Layout layout = layoutNow();
    const QFontMetrics fm = fontMetrics();

    // Time axis: five ticks across the window.
    painter.setPen(pal.color(QPalette::Mid));
    const int axisY = layout.lanes.bottom() + 2;
    painter.drawLine(layout.lanes.left(), axisY, layout.lanes.right(), axisY);
    const QString format = m_window == Window::FiveMinutes ? QStringLiteral("HH:mm:ss")
                                                           : QStringLiteral("HH:mm");
    const TimeZoneMode zone = m_model ? m_model->zone() : TimeZoneMode::Local;
    painter.setPen(pal.color(QPalette::Text));
    for (int i = 0; i <= 4; ++i) {
        const QDateTime t = layout.start.addMSecs(historyWindowMs(m_window) * i / 4);
        const int x = int(xFor(layout, t));
        const QString text = TimeRule::inZone(t, zone).toString(format);
        const int w = fm.horizontalAdvance(text);
        const int left = std::clamp(x - w / 2, layout.lanes.left(), width() - w - 2);
        painter.drawLine(x, axisY, x, axisY + 3);
        painter.drawText(left, axisY + 3 + fm.ascent(), text);
    }
    if (!m_model)
        return;

    const QStringList roles = m_model->roles();
    QStringList shownHolders; // in the window, for the legend
    struct SeenHolder
    {
        const QChar *data; // an interned holder id's text
        QColor color;
    };
    constexpr qsizetype MaxSeenHolders = 32;
    QVarLengthArray<SeenHolder, MaxSeenHolders> seen;
    for (int lane = 0; lane < roles.size(); ++lane) {
        const int top = layout.lanes.top() + lane * (layout.laneHeight + LaneGap);
        if (top > layout.lanes.bottom())
            break;
        const QRect laneRect(layout.lanes.left(), top, layout.lanes.width(), layout.laneHeight);
        painter.setPen(pal.color(QPalette::Text));
        painter.drawText(QRect(4, top, layout.labelWidth - 8, layout.laneHeight),
                         Qt::AlignVCenter | Qt::AlignLeft, roles.at(lane));
        painter.fillRect(laneRect, pal.color(QPalette::AlternateBase));

        // At most one rectangle per pixel column: a day of 1 s ticks is tens of thousands of
        // spans, and a pixel shows one of them whatever we do. Same-colour neighbours merge.
        const qint64 startMs = layout.start.toMSecsSinceEpoch();
        const double pxPerMs = layout.lanes.width() / double(historyWindowMs(m_window));
        const auto xOf = [&](qint64 ms) {
            return layout.lanes.left() + double(ms - startMs) * pxPerMs;
        };
        QRectF pending;
        QColor pendingColor;
        const auto flush = [&] {
            if (!pending.isNull())
                painter.fillRect(pending, pendingColor);
            pending = QRectF();
        };
        const QChar *lastHolder = nullptr;
        QColor lastColor;
        double previousTo = 0;
        double lastLabelRight = -1;
        const int minLabelWidth = fm.horizontalAdvance(QStringLiteral("0.0 s")) + 6;
        struct GapLabel
        {
            double left;
            double right;
            QRectF box;
            QString text;
            HolderChangeKind kind;
        };
        QList<GapLabel> labels; // drawn after the bars, so no bar covers one
        m_model->forEachSpan(
                roles.at(lane), layout.start, layout.end,
                [&](const HolderTimeline::Span &span) {
                    const double x0 = std::max(xOf(span.fromMs), double(laneRect.left()));
                    const double x1 = std::min(xOf(span.toMs), double(laneRect.right()));
                    // The model interns holder ids, so a visit compares a pointer; the text
                    // only for a holder not seen yet in this paint.
                    const QChar *holder = span.holderId.constData();
                    if (holder != lastHolder) {
                        lastHolder = holder;
                        const auto known = std::find_if(
                                seen.cbegin(), seen.cend(),
                                [holder](const SeenHolder &s) { return s.data == holder; });
                        if (known != seen.cend()) {
                            lastColor = known->color;
                        } else {
                            lastColor = holderColor(m_model->holderName(span.holderId), pal);
                            if (!shownHolders.contains(span.holderId))
                                shownHolders.append(span.holderId);
                            if (seen.size() < MaxSeenHolders)
                                seen.append({holder, lastColor});
                        }
                    }
                    if (!pending.isNull() && x0 < std::floor(pending.right()) + 1.0) {
                        // Inside the pixel already painted: extend it, keep its colour.
                        if (lastColor == pendingColor || x1 < std::floor(pending.right()) + 1.0)
                            pending.setRight(std::max(pending.right(), x1));
                        else {
                            flush();
                            pending = QRectF(x0, top + 2, std::max(1.0, x1 - x0),
                                             layout.laneHeight - 4);
                            pendingColor = lastColor;
                        }
                    } else {
                        flush();
                        pending = QRectF(x0, top + 2, std::max(1.0, x1 - x0),
                                         layout.laneHeight - 4);
                        pendingColor = lastColor;
                    }
                    const double gapLeft = previousTo;
                    previousTo = x1;
                    // Handovers are ordinary rotation: only what went wrong, or may have, is
                    // marked.
                    if (!span.change || *span.change == HolderChangeKind::Handover
                        || !span.gapBeforeSeconds)
                        return;
                    const double centre = (gapLeft + x0) / 2.0;
                    if (x0 - gapLeft < 2.0)
                        return; // a gap too short to see at this scale gets no label
                    if (centre - minLabelWidth / 2.0 <= lastLabelRight || gapLeft < laneRect.left())
                        return; // no room for another label here; the tooltip still tells
                    const QString label = gapLabel(span);
                    const int w = fm.horizontalAdvance(label) + 6;
                    const QRectF box(centre - w / 2.0, top + 1, w, layout.laneHeight - 2);
                    labels.append({gapLeft, x0, box, label, *span.change});
                    lastLabelRight = box.right();
                },
                qint64(1.0 / pxPerMs));
        flush();
        for (const GapLabel &label : std::as_const(labels)) {
            painter.setPen(QPen(pal.color(QPalette::Text), 1, Qt::DotLine));
            painter.drawLine(QPointF(label.left, top),
                             QPointF(label.left, top + layout.laneHeight));
            painter.drawLine(QPointF(label.right, top),
                             QPointF(label.right, top + layout.laneHeight));
            paintGapLabel(painter, label.box, label.text, label.kind);
        }
    }
    paintLegend(painter, shownHolders);
}

void HolderTimelineView::paintGapLabel(QPainter &painter, const QRectF &box, const QString &text,
                                       HolderChangeKind kind) const
{
    const QPalette pal = palette();
    if (kind == HolderChangeKind::Takeover) {
        // A frame, not a fill: every fill colour is some holder's, or near one for a colour-blind
        // reader.
        painter.fillRect(box, highlightFill(pal));
        painter.setPen(QPen(highlightOutline(pal), HighlightWidth));
        painter.drawRect(box.adjusted(HighlightWidth / 2, HighlightWidth / 2, -HighlightWidth / 2,
                                      -HighlightWidth / 2));
        painter.drawText(box, Qt::AlignCenter, text);
        return;
    }
    painter.fillRect(box, pal.color(QPalette::ToolTipBase));
    painter.setPen(pal.color(QPalette::ToolTipText));
    painter.drawText(box, Qt::AlignCenter, text);
}

void HolderTimelineView::paintLegend(QPainter &painter, const QStringList &holderIds) const
{
    const QFontMetrics fm = fontMetrics();
    const int y = height() - fm.height() - 2;
    // From the left edge (the lane labels leave that row empty), so a narrow window keeps it all.
    int x = 4;
    // What the colours mean first: each holder in the window by its name, as long as there is room.
    QStringList names;
    for (const QString &id : holderIds)
        names.append(m_model ? m_model->holderName(id) : id);
    QList<int> order(holderIds.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&names](int a, int b) { return names[a] < names[b]; });
    const int swatch = fm.height() - 4;
    for (const int i : std::as_const(order)) {
        const int w = swatch + 4 + fm.horizontalAdvance(names[i]) + 12;
        if (x + w > width() / 2) {
            painter.setPen(palette().color(QPalette::Text));
            painter.drawText(x, y + fm.ascent(), QStringLiteral("…"));
            x += fm.horizontalAdvance(QStringLiteral("…")) + 16;
            break;
        }
        painter.fillRect(QRect(x, y + 2, swatch, swatch), holderColor(names[i], palette()));
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(x + swatch + 4, y + fm.ascent(), names[i]);
        x += w;
    }
    if (!holderIds.isEmpty())
        x += 4;
    for (const auto &[kind, text] :
         {std::pair{HolderChangeKind::Takeover, tr("takeover: gap from the last heartbeat")},
          std::pair{HolderChangeKind::Unknown, tr("? holder change the polls cannot tell")}}) {
        const QString sample = kind == HolderChangeKind::Takeover ? QStringLiteral("9.8 s")
                                                                  : QStringLiteral("?");
        const QRectF box(x, y, fm.horizontalAdvance(sample) + 6, fm.height());
        paintGapLabel(painter, box, sample, kind);
        painter.setPen(palette().color(QPalette::Text));
        x += int(box.width()) + 4;
        painter.drawText(x, y + fm.ascent(), text);
        x += fm.horizontalAdvance(text) + 16;
    }
    const QString last
            = tr("handovers are unmarked; times %1")
                      .arg(TimeRule::zoneName(m_model ? m_model->zone() : TimeZoneMode::Local));
    painter.drawText(x, y + fm.ascent(), last);
}

QString HolderTimelineView::toolTipAt(const QPoint &pos) const
{
    if (!m_model)
        return {};
    const Layout layout = layoutNow();
    if (!layout.lanes.contains(pos))
        return {};
    const int lane = (pos.y() - layout.lanes.top()) / (layout.laneHeight + LaneGap);
    const QStringList roles = m_model->roles();
    if (lane < 0 || lane >= roles.size())
        return {};
    const double msPerPixel = double(layout.start.msecsTo(layout.end)) / layout.lanes.width();
    const QDateTime t = layout.start.addMSecs(qint64((pos.x() - layout.lanes.left()) * msPerPixel));
    const qint64 slack = qint64(2 * msPerPixel); // a tooltip for a bar thinner than the cursor
    const QList<HolderTimeline::Span> spans
            = m_model->spansFor(roles.at(lane), t.addMSecs(-slack), t.addMSecs(slack));
    for (const HolderTimeline::Span &span : spans) {
        if (span.from.addMSecs(-slack) <= t && t <= span.to.addMSecs(slack))
            return spanText(*m_model, span);
    }
    // Between two spans: say how long nobody held the role, and who took over.
    QString text;
    const HolderTimeline::Span *before = nullptr;
    m_model->forEachSpan(
            roles.at(lane), layout.start, layout.end, [&](const HolderTimeline::Span &after) {
                if (text.isEmpty() && before && before->to < t && t < after.from
                    && after.gapBeforeSeconds) {
                    const QString gap = HolderTimeline::formatSeconds(*after.gapBeforeSeconds);
                    text = after.change ? tr("%1: no holder for %2\n%3 → %4\n%5")
                                                  .arg(after.role, gap,
                                                       m_model->holderName(before->holderId),
                                                       m_model->holderName(after.holderId),
                                                       m_model->changeText(after))
                                        : tr("%1: no holder for %2").arg(after.role, gap);
                }
                before = &after;
            });
    return text;
}

bool HolderTimelineView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), plainToolTip(text), this);
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace leader::console
