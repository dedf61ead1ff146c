#include "drillchart.h"

#include "chartscale.h"
#include "core/tickhistory.h"
#include "models/tones.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace leader::console {

namespace {

using Kind = DrillChart::Mark::Kind;

constexpr double Width = DrillChart::LogicalSize.width();
constexpr double Height = DrillChart::LogicalSize.height();
constexpr double Side = 12;     // the image's left and right margin
constexpr double PlotLeft = 62; // room for the age labels and the rotated axis title
constexpr double PlotRight = Width - 20;
constexpr double TitleHeight = 30;
constexpr double LabelHeight = 18;
constexpr double LabelRowGap = 4;
constexpr double LabelGap = 6; // between two labels in a row
constexpr int MaxLabelRows = 6;
constexpr int MaxRowsForCrowds = 3;
constexpr double RowCost = 160;
constexpr double LeaderHeight = 16; // from the labels down to the plot
constexpr double ShapeSize = 10;
constexpr double LaneHeight = 20;
constexpr double LaneGap = 4;
constexpr double EmphasisedWidth = 2.6;
constexpr double OtherWidth = 1.3;

// Printed on paper: the light palette whatever the console's theme.
QPalette printPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Base, Qt::white);
    palette.setColor(QPalette::Window, Qt::white);
    palette.setColor(QPalette::Text, Qt::black);
    palette.setColor(QPalette::WindowText, Qt::black);
    return palette;
}

const QColor Ink(0x20, 0x20, 0x20);
const QColor Muted(0x55, 0x55, 0x55);
const QColor Grid(0xe3, 0xe3, 0xe3);
const QColor Outside(0xf3, 0xf3, 0xf3); // the margin before and after the drill
const QColor GuideInk(0x20, 0x20, 0x20, 150);
const QColor LabelFrame(0x99, 0x99, 0x99);
const QColor Hatch(0xaa, 0xaa, 0xaa);

// The live chart's mark colours (tones: no hue, so none reads as a role); a fault is the drill's
// own and drawn as a cross.
QColor markFillOf(Kind kind)
{
    static const QPalette palette = printPalette();
    switch (kind) {
    case Kind::Fault:
        break;
    case Kind::Takeover:
        return markFill(Mark::Takeover, palette);
    case Kind::Pause:
        return markFill(Mark::Pause, palette);
    case Kind::Unpause:
        return markFill(Mark::Unpause, palette);
    }
    return Ink;
}

QString markName(Kind kind)
{
    switch (kind) {
    case Kind::Fault:
        return QStringLiteral("fault");
    case Kind::Takeover:
        return QStringLiteral("takeover");
    case Kind::Pause:
        return QStringLiteral("pause");
    case Kind::Unpause:
        return QStringLiteral("unpause");
    }
    return {};
}

// The live chart's shapes (AgeChart: square, triangle, diamond) plus a cross for a fault.
void drawShape(QPainter &painter, Kind kind, const QPointF &center, double size)
{
    const double h = size / 2;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setPen(QPen(markOutline(printPalette()), 1.2));
    painter.setBrush(markFillOf(kind));
    switch (kind) {
    case Kind::Fault:
        painter.setPen(QPen(Ink, 2.2, Qt::SolidLine, Qt::RoundCap));
        painter.drawLine(center + QPointF(-h, -h), center + QPointF(h, h));
        painter.drawLine(center + QPointF(-h, h), center + QPointF(h, -h));
        break;
    case Kind::Takeover:
        painter.drawPolygon(QPolygonF{center + QPointF(0, -h - 1), center + QPointF(h + 1, 0),
                                      center + QPointF(0, h + 1), center + QPointF(-h - 1, 0)});
        break;
    case Kind::Pause:
        painter.drawRect(QRectF(center - QPointF(h - 1, h - 1), QSizeF(size - 2, size - 2)));
        break;
    case Kind::Unpause:
        painter.drawPolygon(QPolygonF{center + QPointF(0, -h), center + QPointF(h, h),
                                      center + QPointF(-h, h)});
        break;
    }
    painter.restore();
}

// The marks carry no hue: their guides differ by style.
Qt::PenStyle guideStyle(Kind kind)
{
    switch (kind) {
    case Kind::Fault:
        return Qt::DashLine;
    case Kind::Takeover:
        return Qt::SolidLine;
    case Kind::Pause:
    case Kind::Unpause:
        break;
    }
    return Qt::DotLine;
}

QFont pixelFont(double size, bool bold = false)
{
    QFont font = QGuiApplication::font();
    font.setPixelSize(int(size));
    font.setBold(bold);
    return font;
}

QString secondsText(double value)
{
    return QString::number(value, 'f', value == std::floor(value) ? 0 : 1) + QStringLiteral(" s");
}

QString clockUtc(const QDateTime &time)
{
    return time.toUTC().toString(QStringLiteral("HH:mm:ss"));
}

// Label widths, in order; positions so that none overlaps the next and each stays as near its
// anchor as the others let it: overlapping neighbours merge into a group centred on their anchors'
// mean, kept inside [from, to].
QList<double> spreadLabels(const QList<double> &anchors, const QList<double> &widths, double from,
                           double to)
{
    struct Group
    {
        qsizetype first;
        qsizetype count;
        double width;
        double anchorSum;
        double left;
    };
    const auto place = [&](Group &group) {
        const double centre = group.anchorSum / double(group.count);
        group.left = std::clamp(centre - group.width / 2, from, std::max(from, to - group.width));
    };
    QList<Group> groups;
    for (qsizetype i = 0; i < anchors.size(); ++i) {
        Group group{i, 1, widths.at(i), anchors.at(i), 0};
        place(group);
        while (!groups.isEmpty()
               && groups.last().left + groups.last().width + LabelGap > group.left) {
            const Group previous = groups.takeLast();
            group = Group{previous.first, previous.count + group.count,
                          previous.width + LabelGap + group.width,
                          previous.anchorSum + group.anchorSum, 0};
            place(group);
        }
        groups.append(group);
    }
    QList<double> lefts;
    for (const Group &group : std::as_const(groups)) {
        double left = group.left;
        for (qsizetype i = group.first; i < group.first + group.count; ++i) {
            lefts.append(left);
            left += widths.at(i) + LabelGap;
        }
    }
    return lefts;
}

} // namespace

struct DrillChart::Layout
{
    QRectF plot;
    QRectF lane; // the holders', under the plot; empty without holders
    QList<Label> labels;
    double labelsTop = 0;
    int rows = 1;
    double legendTop = 0;
    double ageTop = 1;
    qint64 startMs = 0;
    qint64 endMs = 1;

    double x(qint64 ms) const
    {
        return plot.left()
               + double(ms - startMs) / double(std::max<qint64>(1, endMs - startMs)) * plot.width();
    }
    double y(double age) const { return plot.bottom() - age / ageTop * plot.height(); }
};

DrillChart::DrillChart(const DrillResult &result, std::optional<AgeThreshold> threshold)
    : m_role(result.role)
    , m_drillStart(result.startedAt)
    , m_drillEnd(result.endedAt)
    , m_threshold(threshold)
{
    // The numbers of the report's table (drillMarkdown): the faults in order, then the pause.
    int number = 0;
    for (const DrillFault &fault : result.faults) {
        ++number;
        const Failover &takeover = fault.takeover;
        const QString faultText = fault.kind.isEmpty()
                                          ? takeover.fault
                                          : fault.kind + QLatin1Char(' ') + takeover.victim;
        if (takeover.faultAt.isValid())
            m_marks.append(Mark{Kind::Fault, number, takeover.faultAt, faultText});
        if (takeover.acquiredAt.isValid())
            m_marks.append(Mark{Kind::Takeover, number, takeover.acquiredAt,
                                QStringLiteral("%1 took over").arg(takeover.successor)});
    }
    const DrillPause &pause = result.pause;
    if (pause.requestedAt.isValid()) {
        ++number;
        m_marks.append(Mark{Kind::Pause, number,
                            pause.pausedAt.isValid() ? pause.pausedAt : pause.requestedAt,
                            QStringLiteral("pause")});
        if (pause.unpauseRequestedAt.isValid())
            m_marks.append(Mark{Kind::Unpause, number, pause.unpauseRequestedAt,
                                QStringLiteral("unpause")});
    }
    // The victim of each fault is the previous fault's successor (DrillRunner), so the holders
    // follow from the table alone.
    QDateTime heldFrom;
    for (const DrillFault &fault : result.faults) {
        const Failover &takeover = fault.takeover;
        const QDateTime from = heldFrom.isValid() ? heldFrom : takeover.lastHeartbeatAt;
        if (from.isValid() && takeover.faultAt.isValid() && from <= takeover.faultAt)
            m_holders.append(Holder{takeover.victim, from, takeover.faultAt});
        heldFrom = takeover.acquiredAt;
    }
    const QString lastSuccessor
            = result.faults.isEmpty() ? QString() : result.faults.last().takeover.successor;
    const QDateTime stopped = pause.pausedAt.isValid() ? pause.pausedAt : pause.requestedAt;
    if (heldFrom.isValid()) {
        const QDateTime until = stopped.isValid() ? stopped : m_drillEnd;
        if (until.isValid() && heldFrom <= until)
            m_holders.append(Holder{lastSuccessor, heldFrom, until});
    }
    if (pause.ledAgainAt.isValid() && m_drillEnd.isValid() && pause.ledAgainAt <= m_drillEnd)
        m_holders.append(Holder{pause.ledAgainBy, pause.ledAgainAt, m_drillEnd});
    std::stable_sort(m_marks.begin(), m_marks.end(),
                     [](const Mark &a, const Mark &b) { return a.time < b.time; });

    // The drill's range, widened to every mark should a clock disagree, plus the margin.
    QDateTime first = m_drillStart;
    QDateTime last = m_drillEnd.isValid() ? m_drillEnd : m_drillStart;
    for (const Mark &mark : std::as_const(m_marks)) {
        if (!first.isValid() || mark.time < first)
            first = mark.time;
        if (!last.isValid() || mark.time > last)
            last = mark.time;
    }
    const qint64 span = first.isValid() ? first.msecsTo(last) : 0;
    const qint64 margin
            = std::max(MinMarginMs, qint64(std::llround(double(span) * MarginFraction)));
    m_start = first.addMSecs(-margin);
    m_end = last.addMSecs(margin);
}

QList<DrillChart::Curve> DrillChart::curvesFrom(const TickHistory &history, const QDateTime &from,
                                                const QDateTime &to)
{
    QList<Curve> curves;
    if (history.isEmpty() || !from.isValid() || !to.isValid())
        return curves;
    const qint64 back = from.msecsTo(history.latestTime());
    HistoryWindow window = HistoryWindow::Day;
    for (const HistoryWindow candidate : {HistoryWindow::FiveMinutes, HistoryWindow::OneHour}) {
        if (back <= historyWindowMs(candidate)) {
            window = candidate;
            break;
        }
    }
    // Every raw sample the window holds: the drill is short, so this is its own resolution.
    constexpr int MaxPoints = 4 * TickHistory::MaxRawSamples;
    const double fromMs = double(from.toMSecsSinceEpoch());
    const double toMs = double(to.toMSecsSinceEpoch());
    for (const QString &role : history.roles()) {
        const QList<QPointF> all = history.series(role, window, MaxPoints);
        Curve curve{role, {}};
        for (qsizetype i = 0; i < all.size(); ++i) {
            const double x = all.at(i).x();
            const bool inside = x >= fromMs && x <= toMs;
            const bool justBefore = x < fromMs && i + 1 < all.size() && all.at(i + 1).x() >= fromMs;
            const bool justAfter = x > toMs && i > 0 && all.at(i - 1).x() <= toMs;
            if (inside || justBefore || justAfter)
                curve.points.append(all.at(i));
        }
        curves.append(curve);
    }
    return curves;
}

std::optional<double> DrillChart::ageAt(const QString &role, qint64 ms) const
{
    for (const Curve &curve : m_curves) {
        if (curve.role != role)
            continue;
        const QList<QPointF> &points = curve.points;
        const double x = double(ms);
        for (qsizetype i = 0; i + 1 < points.size(); ++i) {
            const QPointF &a = points.at(i);
            const QPointF &b = points.at(i + 1);
            if (x < a.x() || x > b.x())
                continue;
            const double t = b.x() > a.x() ? (x - a.x()) / (b.x() - a.x()) : 0.0;
            return a.y() + t * (b.y() - a.y());
        }
    }
    return std::nullopt;
}

double DrillChart::ageAxisTop() const
{
    const qint64 from = m_start.toMSecsSinceEpoch();
    const qint64 to = m_end.toMSecsSinceEpoch();
    double top = 1.0;
    for (const Curve &curve : m_curves) {
        for (const QPointF &point : curve.points) {
            if (point.x() >= double(from) && point.x() <= double(to))
                top = std::max(top, point.y());
        }
    }
    // A threshold far above the curves would flatten them: drawn only when near, as live.
    const double dataTop = top;
    if (m_threshold) {
        for (const double line : {m_threshold->warnSeconds, m_threshold->alertSeconds}) {
            if (line > 0 && line <= dataTop * 1.5)
                top = std::max(top, line);
        }
    }
    return niceCeiling(top * 1.05);
}

QList<std::pair<QDateTime, QString>> DrillChart::timeTicks() const
{
    const qint64 span = m_start.msecsTo(m_end);
    qint64 step = 3600 * 1000;
    for (const int seconds : {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}) {
        if (span / (seconds * 1000LL) <= 10) {
            step = seconds * 1000LL;
            break;
        }
    }
    QList<std::pair<QDateTime, QString>> ticks;
    const qint64 startMs = m_start.toMSecsSinceEpoch();
    for (qint64 ms = (startMs + step - 1) / step * step; ms <= m_end.toMSecsSinceEpoch();
         ms += step) {
        const QDateTime time = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
        ticks.append({time, clockUtc(time)});
    }
    return ticks;
}

DrillChart::Layout DrillChart::layout() const
{
    Layout layout;
    layout.startMs = m_start.toMSecsSinceEpoch();
    layout.endMs = std::max(layout.startMs + 1, m_end.toMSecsSinceEpoch());
    layout.ageTop = ageAxisTop();

    const QFontMetricsF text(pixelFont(11));
    const QFontMetricsF number(pixelFont(11, true));
    QList<double> widths;
    for (const Mark &mark : m_marks)
        widths.append(4 + ShapeSize + 4 + number.horizontalAdvance(QString::number(mark.number)) + 4
                      + text.horizontalAdvance(mark.text) + 5);
    // As few rows as let every row fit across the image: a drill's eight marks take one; more
    // go round-robin, so neighbours in time sit in different rows.
    const auto fits = [&](int rows) {
        for (int row = 0; row < rows; ++row) {
            double total = -LabelGap;
            for (qsizetype i = row; i < widths.size(); i += rows)
                total += widths.at(i) + LabelGap;
            if (total > Width - 2 * Side)
                return false;
        }
        return true;
    };
    // The plot's width does not depend on the rows: place the labels first.
    layout.plot = QRectF(PlotLeft, 0, PlotRight - PlotLeft, 1);
    struct Placed
    {
        qsizetype index;
        int row;
        double left;
    };
    const auto place = [&](int rows) {
        QList<Placed> placed;
        for (int row = 0; row < rows; ++row) {
            QList<double> anchors;
            QList<double> rowWidths;
            QList<qsizetype> indexes;
            for (qsizetype i = row; i < m_marks.size(); i += rows) {
                anchors.append(layout.x(m_marks.at(i).time.toMSecsSinceEpoch()));
                rowWidths.append(widths.at(i));
                indexes.append(i);
            }
            const QList<double> lefts = spreadLabels(anchors, rowWidths, Side, Width - Side);
            for (qsizetype j = 0; j < indexes.size(); ++j)
                placed.append(Placed{indexes.at(j), row, lefts.at(j)});
        }
        return placed;
    };
    // How far the labels stray from their marks, plus a row's height of cost for each row more:
    // a crowd of marks takes a second row rather than leaders across half the image.
    const auto cost = [&](const QList<Placed> &placed, int rows) {
        double farthest = 0;
        for (const Placed &label : placed) {
            const double anchor = layout.x(m_marks.at(label.index).time.toMSecsSinceEpoch());
            farthest = std::max(farthest,
                                std::abs(label.left + widths.at(label.index) / 2 - anchor));
        }
        return farthest + RowCost * (rows - 1);
    };
    layout.rows = 1;
    while (layout.rows < MaxLabelRows && !fits(layout.rows))
        ++layout.rows;
    QList<Placed> placed = place(layout.rows);
    for (int rows = layout.rows + 1; rows <= MaxRowsForCrowds; ++rows) {
        const QList<Placed> more = place(rows);
        if (cost(more, rows) < cost(placed, layout.rows)) {
            placed = more;
            layout.rows = rows;
        }
    }

    layout.labelsTop = TitleHeight;
    const double labelsBottom
            = layout.labelsTop + layout.rows * LabelHeight + (layout.rows - 1) * LabelRowGap;
    layout.legendTop = Height - 24;
    const double axisTop = layout.legendTop - 40; // the time axis' labels and title below it
    const double laneSpace = m_holders.isEmpty() ? 0.0 : LaneHeight + LaneGap;
    layout.plot = QRectF(QPointF(PlotLeft, labelsBottom + LeaderHeight),
                         QPointF(PlotRight, axisTop - laneSpace));
    if (!m_holders.isEmpty())
        layout.lane = QRectF(PlotLeft, layout.plot.bottom() + LaneGap, PlotRight - PlotLeft,
                             LaneHeight);
    for (const Placed &label : std::as_const(placed)) {
        // Row 0 is the one nearest the plot.
        const double top = labelsBottom - LabelHeight - label.row * (LabelHeight + LabelRowGap);
        layout.labels.append(Label{m_marks.at(label.index),
                                   QRectF(label.left, top, widths.at(label.index), LabelHeight)});
    }
    std::stable_sort(layout.labels.begin(), layout.labels.end(),
                     [](const Label &a, const Label &b) { return a.mark.time < b.mark.time; });
    return layout;
}

QRectF DrillChart::holderLane() const
{
    return layout().lane;
}

QPointF DrillChart::pixelFor(const QDateTime &time, double ageSeconds) const
{
    const Layout layout = this->layout();
    return {layout.x(time.toMSecsSinceEpoch()), layout.y(ageSeconds)};
}

QList<DrillChart::Label> DrillChart::labels() const
{
    return layout().labels;
}

QImage DrillChart::render() const
{
    QImage image(LogicalSize * PixelRatio, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(PixelRatio);
    // 192 dpi: printed, the 960 logical pixels come out as wide as on a 96 dpi screen.
    constexpr int DotsPerMeter = int(96 * PixelRatio / 0.0254);
    image.setDotsPerMeterX(DotsPerMeter);
    image.setDotsPerMeterY(DotsPerMeter);
    image.fill(Qt::white);

    const Layout layout = this->layout();
    const QRectF &plot = layout.plot;
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setRenderHint(QPainter::TextAntialiasing, true);

    // Title: what, and when.
    painter.setFont(pixelFont(14, true));
    painter.setPen(Ink);
    const QRectF titleRect(Side, 6, Width - 2 * Side, 20);
    painter.drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter,
                     QStringLiteral("Failover drill on %1: each role's last tick age").arg(m_role));
    painter.setFont(pixelFont(12));
    painter.setPen(Muted);
    painter.drawText(titleRect, Qt::AlignRight | Qt::AlignVCenter,
                     QStringLiteral("%1, %2 to %3 UTC")
                             .arg(m_drillStart.toUTC().toString(QStringLiteral("yyyy-MM-dd")),
                                  clockUtc(m_drillStart), clockUtc(m_drillEnd)));

    // The margins before and after the drill, shaded so the drill itself stands out.
    painter.fillRect(QRectF(QPointF(plot.left(), plot.top()),
                            QPointF(layout.x(m_drillStart.toMSecsSinceEpoch()), plot.bottom())),
                     Outside);
    painter.fillRect(QRectF(QPointF(layout.x(m_drillEnd.toMSecsSinceEpoch()), plot.top()),
                            QPointF(plot.right(), plot.bottom())),
                     Outside);

    // Grid and axes; the time axis' labels under the holders' lane.
    const double axisBottom = layout.lane.isEmpty() ? plot.bottom() : layout.lane.bottom();
    const double top = layout.ageTop;
    const double leading = std::round(top / std::pow(10.0, std::floor(std::log10(top))));
    const int steps = leading == 2.0 ? 4 : 5;
    painter.setFont(pixelFont(11));
    for (int i = 0; i <= steps; ++i) {
        const double value = top * i / steps;
        const double y = layout.y(value);
        painter.setPen(QPen(Grid, 1));
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.setPen(Muted);
        painter.drawText(QRectF(0, y - 8, plot.left() - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
                         QString::number(value, 'f', top / steps < 1.0 ? 1 : 0));
    }
    for (const auto &[time, text] : timeTicks()) {
        const double x = layout.x(time.toMSecsSinceEpoch());
        painter.setPen(QPen(Grid, 1));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        painter.setPen(Muted);
        painter.drawLine(QPointF(x, axisBottom), QPointF(x, axisBottom + 4));
        // A label at the range's very end moves in rather than off the image.
        const bool atEnd = x + 40 > Width - 2;
        painter.drawText(QRectF(atEnd ? Width - 82 : x - 40, axisBottom + 5, 80, 14),
                         atEnd ? Qt::AlignRight | Qt::AlignVCenter : Qt::AlignCenter, text);
    }
    painter.setPen(QPen(Muted, 1));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    painter.setPen(Ink);
    painter.drawText(QRectF(plot.left(), axisBottom + 20, plot.width(), 14), Qt::AlignCenter,
                     QStringLiteral("database time (UTC)"));
    painter.save();
    painter.translate(14, plot.center().y());
    painter.rotate(-90);
    painter.drawText(QRectF(-plot.height() / 2, -8, plot.height(), 16), Qt::AlignCenter,
                     QStringLiteral("last tick age (s)"));
    painter.restore();

    // The drilled role's thresholds, labelled where they end (over the curves, drawn later).
    QList<std::pair<QRectF, QString>> thresholdLabels;
    if (m_threshold) {
        const QList<std::pair<QString, double>> lines{
                {QStringLiteral("warn"), m_threshold->warnSeconds},
                {QStringLiteral("alert"), m_threshold->alertSeconds}};
        for (const auto &[name, seconds] : lines) {
            if (seconds <= 0 || seconds > top)
                continue;
            const double y = layout.y(seconds);
            painter.setPen(QPen(Muted, 1, Qt::DashLine));
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
            const QString text = QStringLiteral("%1 %2 %3").arg(m_role, name, secondsText(seconds));
            const double width = QFontMetricsF(painter.font()).horizontalAdvance(text) + 6;
            thresholdLabels.append({QRectF(plot.right() - 4 - width, y - 16, width, 14), text});
        }
    }

    // The curves: the others thin and pale first, the drilled role last, thick, on top.
    QList<QColor> colors;
    for (qsizetype i = 0; i < m_curves.size(); ++i)
        colors.append(roleColor(int(i), printPalette()));
    const auto drawCurve = [&](const Curve &curve, const QColor &color, double width) {
        if (curve.points.size() < 2)
            return;
        QPainterPath path;
        for (qsizetype i = 0; i < curve.points.size(); ++i) {
            const QPointF p(layout.x(qint64(curve.points.at(i).x())),
                            layout.y(curve.points.at(i).y()));
            if (i == 0)
                path.moveTo(p);
            else
                path.lineTo(p);
        }
        painter.setPen(QPen(color, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        painter.setBrush(Qt::NoBrush);
        painter.drawPath(path);
    };
    painter.save();
    painter.setClipRect(plot.adjusted(0, -EmphasisedWidth, 0, 0));
    for (qsizetype i = 0; i < m_curves.size(); ++i) {
        if (m_curves.at(i).role == m_role)
            continue;
        QColor pale = colors.at(i);
        pale.setAlphaF(0.55f);
        drawCurve(m_curves.at(i), pale, OtherWidth);
    }
    // Guides under the drilled role's line, over the others'.
    for (const Label &label : layout.labels) {
        const double x = layout.x(label.mark.time.toMSecsSinceEpoch());
        painter.setPen(QPen(GuideInk, 1, guideStyle(label.mark.kind)));
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    }
    const std::optional<qsizetype> drilled = [&]() -> std::optional<qsizetype> {
        for (qsizetype i = 0; i < m_curves.size(); ++i) {
            if (m_curves.at(i).role == m_role)
                return i;
        }
        return std::nullopt;
    }();
    if (drilled)
        drawCurve(m_curves.at(*drilled), colors.at(*drilled), EmphasisedWidth);
    painter.restore();
    painter.setFont(pixelFont(11));
    for (const auto &[box, text] : std::as_const(thresholdLabels)) {
        painter.fillRect(box, Qt::white);
        painter.setPen(Muted);
        painter.drawText(box, Qt::AlignCenter, text);
    }
    // A role that finished no tick has no age: say so rather than leave the reader looking.
    const auto hasAge = [&] {
        if (!drilled)
            return false;
        for (const QPointF &point : m_curves.at(*drilled).points) {
            if (point.x() >= double(layout.startMs) && point.x() <= double(layout.endMs))
                return true;
        }
        return false;
    };
    if (!hasAge()) {
        painter.setFont(pixelFont(11));
        const QString note
                = layout.lane.isEmpty()
                          ? QStringLiteral("%1 finished no tick in this range: it has no age to "
                                           "draw.")
                                    .arg(m_role)
                          : QStringLiteral("%1 finished no tick in this range: it has no age to "
                                           "draw; who held it is in the lane under the plot.")
                                    .arg(m_role);
        const QRectF noteRect(plot.left() + 8, plot.top() + 6,
                              QFontMetricsF(painter.font()).horizontalAdvance(note) + 8, 16);
        painter.fillRect(noteRect, Qt::white);
        painter.setPen(Muted);
        painter.drawText(noteRect, Qt::AlignCenter, note);
    }

    // The drilled role's holders: its colour, named; nobody holding it is hatched.
    const QColor roleTint = [&] {
        QColor color = drilled ? colors.at(*drilled) : Muted;
        color.setAlphaF(0.22f);
        return color;
    }();
    if (!layout.lane.isEmpty()) {
        const QRectF &lane = layout.lane;
        painter.setFont(pixelFont(11));
        painter.setPen(Muted);
        painter.drawText(QRectF(0, lane.top(), lane.left() - 6, lane.height()),
                         Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("holder"));
        painter.save();
        painter.setClipRect(lane);
        const double firstX = layout.x(m_holders.first().from.toMSecsSinceEpoch());
        const double lastX = layout.x(m_holders.last().to.toMSecsSinceEpoch());
        painter.fillRect(QRectF(QPointF(firstX, lane.top()), QPointF(lastX, lane.bottom())),
                         QBrush(Hatch, Qt::BDiagPattern));
        for (qsizetype i = 0; i + 1 < m_holders.size(); ++i) {
            const QRectF gap(
                    QPointF(layout.x(m_holders.at(i).to.toMSecsSinceEpoch()), lane.top()),
                    QPointF(layout.x(m_holders.at(i + 1).from.toMSecsSinceEpoch()), lane.bottom()));
            const double seconds
                    = double(m_holders.at(i).to.msecsTo(m_holders.at(i + 1).from)) / 1000.0;
            // The longest text that fits.
            for (const QString &text : {QStringLiteral("nobody running %1 for %2 s")
                                                .arg(m_role, QString::number(seconds, 'f', 2)),
                                        QStringLiteral("%1 s").arg(seconds, 0, 'f', 2)}) {
                const double width = QFontMetricsF(painter.font()).horizontalAdvance(text) + 8;
                if (gap.width() < width + 4)
                    continue;
                painter.fillRect(QRectF(gap.center() - QPointF(width / 2, 7), QSizeF(width, 14)),
                                 Qt::white);
                painter.setPen(Muted);
                painter.drawText(gap, Qt::AlignCenter, text);
                break;
            }
        }
        for (const Holder &holder : m_holders) {
            const QRectF span(QPointF(layout.x(holder.from.toMSecsSinceEpoch()), lane.top()),
                              QPointF(std::max(layout.x(holder.to.toMSecsSinceEpoch()),
                                               layout.x(holder.from.toMSecsSinceEpoch()) + 1),
                                      lane.bottom()));
            painter.fillRect(span, Qt::white);
            painter.fillRect(span, roleTint);
            painter.setPen(QPen(drilled ? colors.at(*drilled) : Muted, 1));
            painter.drawLine(span.topLeft(), span.bottomLeft());
            painter.drawLine(span.topRight(), span.bottomRight());
            painter.setPen(Ink);
            if (span.width() > QFontMetricsF(painter.font()).horizontalAdvance(holder.name) + 6)
                painter.drawText(span, Qt::AlignCenter, holder.name);
        }
        painter.restore();
        painter.setPen(QPen(LabelFrame, 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(lane);
    }

    // Each mark on the holders' lane (else on the drilled role's line, at the axis when it has
    // no age then), and a leader from its time up to its label above the plot.
    for (const Label &label : layout.labels) {
        const qint64 ms = label.mark.time.toMSecsSinceEpoch();
        const double x = layout.x(ms);
        if (!layout.lane.isEmpty()) {
            painter.setPen(QPen(GuideInk, 1, guideStyle(label.mark.kind)));
            painter.drawLine(QPointF(x, plot.bottom()), QPointF(x, layout.lane.top()));
        }
        const double y = layout.lane.isEmpty()
                                 ? layout.y(std::min(top, ageAt(m_role, ms).value_or(0.0)))
                                 : layout.lane.center().y();
        drawShape(painter, label.mark.kind, QPointF(x, y), ShapeSize);
        const QRectF &rect = label.rect;
        painter.setPen(QPen(GuideInk, 1, guideStyle(label.mark.kind)));
        painter.drawLine(QPointF(std::clamp(x, rect.left() + 3, rect.right() - 3), rect.bottom()),
                         QPointF(x, plot.top()));
    }
    // The labels over every leader: one from an upper row passes behind a lower row's label.
    for (const Label &label : layout.labels) {
        const QRectF &rect = label.rect;
        painter.setPen(QPen(LabelFrame, 1));
        painter.setBrush(Qt::white);
        painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
        drawShape(painter, label.mark.kind,
                  QPointF(rect.left() + 4 + ShapeSize / 2, rect.center().y()), ShapeSize - 1);
        double textLeft = rect.left() + 4 + ShapeSize + 4;
        const QString number = QString::number(label.mark.number);
        painter.setFont(pixelFont(11, true));
        painter.setPen(Ink);
        painter.drawText(QRectF(textLeft, rect.top(), rect.right() - textLeft, rect.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, number);
        textLeft += QFontMetricsF(pixelFont(11, true)).horizontalAdvance(number) + 4;
        painter.setFont(pixelFont(11));
        painter.drawText(QRectF(textLeft, rect.top(), rect.right() - textLeft, rect.height()),
                         Qt::AlignLeft | Qt::AlignVCenter, label.mark.text);
    }

    // The legend: the roles, then the marks' shapes; one centred row.
    struct Entry
    {
        QString text;
        bool bold = false;
        std::optional<QColor> line;
        double lineWidth = 0;
        std::optional<Kind> shape;
    };
    QList<Entry> entries;
    for (qsizetype i = 0; i < m_curves.size(); ++i) {
        const bool drilled = m_curves.at(i).role == m_role;
        QColor color = colors.at(i);
        if (!drilled)
            color.setAlphaF(0.55f);
        entries.append(
                Entry{drilled ? QStringLiteral("%1 (drilled)").arg(m_role) : m_curves.at(i).role,
                      drilled,
                      color,
                      drilled ? EmphasisedWidth : OtherWidth + 0.5,
                      {}});
    }
    for (const Kind kind : {Kind::Fault, Kind::Takeover, Kind::Pause, Kind::Unpause})
        entries.append(Entry{markName(kind), false, {}, 0, kind});
    const QFont legendFont = pixelFont(11);
    const QFont legendBold = pixelFont(11, true);
    const auto entryWidth = [&](const Entry &entry) {
        const double swatch = entry.line ? 22 : ShapeSize + 2;
        return swatch + 5
               + QFontMetricsF(entry.bold ? legendBold : legendFont).horizontalAdvance(entry.text);
    };
    constexpr double EntryGap = 14;
    double legendWidth = -EntryGap;
    for (const Entry &entry : std::as_const(entries))
        legendWidth += entryWidth(entry) + EntryGap;
    double x = std::max(Side, (Width - legendWidth) / 2);
    const double legendY = layout.legendTop + 10;
    for (const Entry &entry : std::as_const(entries)) {
        double swatch = 0;
        if (entry.line) {
            swatch = 22;
            painter.setPen(QPen(*entry.line, entry.lineWidth, Qt::SolidLine, Qt::RoundCap));
            painter.drawLine(QPointF(x + 1, legendY), QPointF(x + swatch - 1, legendY));
        } else if (entry.shape) {
            swatch = ShapeSize + 2;
            drawShape(painter, *entry.shape, QPointF(x + swatch / 2, legendY), ShapeSize);
        }
        painter.setFont(entry.bold ? legendBold : legendFont);
        painter.setPen(Ink);
        painter.drawText(QRectF(x + swatch + 5, legendY - 8, Width, 16),
                         Qt::AlignLeft | Qt::AlignVCenter, entry.text);
        x += entryWidth(entry) + EntryGap;
    }
    return image;
}

} // namespace leader::console
