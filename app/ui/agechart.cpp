#include "agechart.h"

#include "chartscale.h"
#include "models/plaintext.h"
#include "models/tones.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QDateTimeAxis>
#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QGraphicsSceneHoverEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMap>
#include <QPainter>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

namespace leader::console {

namespace {

using Kind = TickHistory::Marker::Kind;

constexpr int MarkerKindCount = 3;

Mark toneMark(Kind kind)
{
    switch (kind) {
    case Kind::Pause:
        return Mark::Pause;
    case Kind::Unpause:
        return Mark::Unpause;
    case Kind::Takeover:
        break;
    }
    return Mark::Takeover;
}

// The marks carry no hue (tones), so that none reads as a role's colour: their shapes tell them
// apart, in the legend as on the chart.
QScatterSeries::MarkerShape markerShape(Kind kind)
{
    switch (kind) {
    case Kind::Pause:
        return QScatterSeries::MarkerShapeRectangle;
    case Kind::Unpause:
        return QScatterSeries::MarkerShapeTriangle;
    case Kind::Takeover:
        return QScatterSeries::MarkerShapeRotatedRectangle;
    }
    return QScatterSeries::MarkerShapeCircle;
}

QString markerName(Kind kind)
{
    switch (kind) {
    case Kind::Pause:
        return AgeChart::tr("paused");
    case Kind::Unpause:
        return AgeChart::tr("unpaused");
    case Kind::Takeover:
        return AgeChart::tr("takeover");
    }
    return {};
}

QString axisFormat(HistoryWindow window)
{
    return window == HistoryWindow::FiveMinutes ? QStringLiteral("HH:mm:ss")
                                                : QStringLiteral("HH:mm");
}

constexpr double CurvePenWidth = 1.5;
// A segment at most this wide (px) and this many times steeper than wide is drawn as part of its
// pixel columns' extents: most of the zigzag of a day of min/max buckets. Wider, a steep ramp (a
// paused role's age) would show as steps, so it stays an antialiased line.
constexpr double DenseWidth = 1.0;
constexpr double DenseSteepness = 3.0;
// How near (px) the cursor has to be to a curve for its tooltip.
constexpr double HoverDistance = 3.0;

double distanceToSegment(const QPointF &p, const QPointF &a, const QPointF &b)
{
    const QPointF ab = b - a;
    const double length2 = QPointF::dotProduct(ab, ab);
    const double t
            = length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / length2, 0.0, 1.0) : 0.0;
    const QPointF d = p - (a + t * ab);
    return std::hypot(d.x(), d.y());
}

} // namespace

// The roles' curves, drawn into the chart in place of QLineSeries. Qt Charts strokes every segment
// of a line series twice per change (its hover shape, then the antialiased line) and the time axis
// moves on every poll, which with a day of min/max buckets for five roles was most of a frame. Here
// a narrow steep segment, as the dense zigzag of buckets is made of, becomes part of the extents of
// the pixel columns it crosses: per column the minimum and the maximum of everything crossing it,
// so a spike inside one column is still drawn to its top. A vertical run has no jaggies, so these
// are filled without antialiasing; every other segment is an antialiased line, as before.
class AgeCurves final : public QGraphicsItem
{
public:
    struct Curve
    {
        QString role;
        QList<QPointF> points; // x: the time axis' (shifted) msecs since epoch, y: age in seconds
        QPen pen;
    };
    using HoverHandler = std::function<void(const QString &role, const QPointF &value, bool state)>;
    // A threshold line's name and value, written at its right end just above it.
    struct LineLabel
    {
        double age = 0;
        QString text;
    };

    explicit AgeCurves(QGraphicsItem *parent)
        : QGraphicsItem(parent)
    {
        setAcceptHoverEvents(true);
    }

    int addCurve(const QString &role)
    {
        m_curves.append(Curve{role, {}, QPen()});
        return int(m_curves.size()) - 1;
    }
    Curve &curve(int index) { return m_curves[index]; }
    void setHoverHandler(HoverHandler handler) { m_hover = std::move(handler); }
    void setLineLabels(QList<LineLabel> labels)
    {
        m_labels = std::move(labels);
        update();
    }
    const QList<LineLabel> &lineLabels() const { return m_labels; }
    void setLabelColor(const QColor &color)
    {
        m_labelColor = color;
        update();
    }

    void setTimeRange(double minX, double maxX)
    {
        m_minX = minX;
        m_maxX = maxX;
        update();
    }
    void setAgeRange(double minY, double maxY)
    {
        m_minY = minY;
        m_maxY = maxY;
        update();
    }
    void setPlotArea(const QRectF &area)
    {
        prepareGeometryChange();
        m_plot = area;
    }
    QRectF plotArea() const { return m_plot; }

    QPointF toPixel(const QPointF &value) const
    {
        const double sx = m_maxX > m_minX ? m_plot.width() / (m_maxX - m_minX) : 0.0;
        const double sy = m_maxY > m_minY ? m_plot.height() / (m_maxY - m_minY) : 0.0;
        return {m_plot.left() + (value.x() - m_minX) * sx,
                m_plot.bottom() - (value.y() - m_minY) * sy};
    }
    QPointF toValue(const QPointF &pixel) const
    {
        const double w = std::max(1.0, m_plot.width());
        const double h = std::max(1.0, m_plot.height());
        return {m_minX + (pixel.x() - m_plot.left()) / w * (m_maxX - m_minX),
                m_minY + (m_plot.bottom() - pixel.y()) / h * (m_maxY - m_minY)};
    }

    QRectF boundingRect() const override { return m_plot; }
    QPainterPath shape() const override
    {
        QPainterPath path;
        path.addRect(m_plot);
        return path;
    }

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        if (m_plot.isEmpty())
            return;
        painter->save();
        painter->setClipRect(m_plot);
        for (const Curve &curve : std::as_const(m_curves))
            paintCurve(painter, curve);
        painter->setRenderHint(QPainter::TextAntialiasing, true);
        painter->setPen(m_labelColor);
        const QFontMetricsF metrics(painter->font());
        // Lowest line first (m_labels ascend by age); a label too close to the one below it
        // moves up rather than overprint it.
        double ceiling = std::numeric_limits<double>::infinity();
        for (const LineLabel &label : std::as_const(m_labels)) {
            const double baseline = std::min(
                    toPixel(QPointF(m_maxX, label.age)).y() - 3 - metrics.descent(), ceiling);
            painter->drawText(
                    QPointF(m_plot.right() - 4 - metrics.horizontalAdvance(label.text), baseline),
                    label.text);
            ceiling = baseline - metrics.height();
        }
        painter->restore();
    }

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent *event) override { hoverAt(event->pos()); }
    void hoverLeaveEvent(QGraphicsSceneHoverEvent *) override
    {
        if (!m_hovered.isEmpty() && m_hover)
            m_hover(m_hovered, {}, false);
        m_hovered.clear();
    }

private:
    void hoverAt(const QPointF &pos)
    {
        const QString role = curveNear(pos);
        if (!m_hover || (role.isEmpty() && m_hovered.isEmpty()))
            return;
        if (role.isEmpty())
            m_hover(m_hovered, {}, false);
        else
            m_hover(role, toValue(pos), true); // the cursor's value, as QLineSeries::hovered gives
        m_hovered = role;
    }

    // The topmost curve within HoverDistance of pixel, or empty.
    QString curveNear(const QPointF &pixel) const
    {
        const double msPerPixel = (m_maxX - m_minX) / std::max(1.0, m_plot.width());
        const double from = toValue(pixel).x() - (HoverDistance + 1) * msPerPixel;
        const double to = toValue(pixel).x() + (HoverDistance + 1) * msPerPixel;
        for (auto curve = m_curves.crbegin(); curve != m_curves.crend(); ++curve) {
            const QList<QPointF> &points = curve->points;
            auto it = std::lower_bound(points.cbegin(), points.cend(), from,
                                       [](const QPointF &p, double x) { return p.x() < x; });
            if (it != points.cbegin())
                --it;
            for (; it + 1 < points.cend() && it->x() <= to; ++it) {
                if (distanceToSegment(pixel, toPixel(*it), toPixel(*(it + 1))) <= HoverDistance)
                    return curve->role;
            }
        }
        return {};
    }

    void paintCurve(QPainter *painter, const Curve &curve)
    {
        const QList<QPointF> &points = curve.points;
        if (points.size() < 2)
            return; // a line needs two points, as in QLineSeries
        const double half = curve.pen.widthF() / 2.0;
        m_firstColumn = int(std::floor(m_plot.left() - half)) - 1;
        const auto columns = size_t(std::ceil(m_plot.width() + 2 * half)) + 3;
        m_low.assign(columns, std::numeric_limits<double>::infinity());
        m_high.assign(columns, -std::numeric_limits<double>::infinity());
        m_lines.clear();
        QPointF a = toPixel(points.first());
        for (qsizetype i = 1; i < points.size(); ++i) {
            const QPointF b = toPixel(points.at(i));
            const double dx = b.x() - a.x();
            if (dx <= DenseWidth && std::abs(b.y() - a.y()) >= DenseSteepness * dx)
                addToColumns(a, b, half);
            else
                m_lines.append(QLineF(a, b));
            a = b;
        }
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(curve.pen);
        painter->drawLines(m_lines);
        painter->setRenderHint(QPainter::Antialiasing, false);
        const QColor color = curve.pen.color();
        for (size_t c = 0; c < columns; ++c) {
            if (m_low[c] > m_high[c])
                continue;
            // The rows whose centres the extent covers, at least one.
            const int top = int(std::ceil(m_low[c] - 0.5));
            const int bottom = std::max(top, int(std::floor(m_high[c] - 0.5)));
            painter->fillRect(QRect(m_firstColumn + int(c), top, 1, bottom - top + 1), color);
        }
    }

    // Widens the extents of the columns a (left) to b crosses, the pen's width included.
    void addToColumns(const QPointF &a, const QPointF &b, double half)
    {
        const double dx = b.x() - a.x();
        const auto yAt = [&](double x) {
            return dx > 1e-9 ? a.y() + (b.y() - a.y()) * (x - a.x()) / dx : a.y();
        };
        const int first = int(std::ceil(a.x() - half - 0.5));
        const int last = int(std::floor(b.x() + half - 0.5));
        for (int column = first; column <= last; ++column) {
            const auto index = size_t(column - m_firstColumn);
            if (column < m_firstColumn || index >= m_low.size())
                continue;
            double y0 = yAt(std::clamp(double(column), a.x(), b.x()));
            double y1 = yAt(std::clamp(double(column + 1), a.x(), b.x()));
            if (dx <= 1e-9) {
                y0 = a.y();
                y1 = b.y();
            }
            m_low[index] = std::min(m_low[index], std::min(y0, y1) - half);
            m_high[index] = std::max(m_high[index], std::max(y0, y1) + half);
        }
    }

    QList<Curve> m_curves;
    QRectF m_plot;
    double m_minX = 0;
    double m_maxX = 1;
    double m_minY = 0;
    double m_maxY = 1;
    HoverHandler m_hover;
    QString m_hovered;
    QList<LineLabel> m_labels;
    QColor m_labelColor = Qt::black;
    // Scratch for paintCurve(), kept so a frame allocates nothing.
    int m_firstColumn = 0;
    std::vector<double> m_low;
    std::vector<double> m_high;
    QList<QLineF> m_lines;
};

AgeChart::AgeChart(QWidget *parent)
    : QWidget(parent)
    , m_windowBox(new QComboBox(this))
    , m_chart(new QChart)
{
    for (const Window window : {Window::FiveMinutes, Window::OneHour, Window::Day})
        m_windowBox->addItem(historyWindowName(window), int(window));
    m_windowBox->setAccessibleName(tr("Time window"));
    connect(m_windowBox, &QComboBox::currentIndexChanged, this,
            [this](int index) { setWindow(Window(m_windowBox->itemData(index).toInt())); });

    // Redrawing every poll is the point; animations would only lag behind it.
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    // The marks differ by shape only: the legend shows each series' own.
    m_chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
    m_chart->setMargins(QMargins(4, 4, 4, 4));

    m_timeAxis = new QDateTimeAxis(m_chart);
    m_timeAxis->setFormat(axisFormat(m_window));
    m_timeAxis->setTickCount(6);
    m_timeAxis->setTitleText(tr("database time (%1)").arg(TimeRule::zoneName(zone())));
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_ageAxis = new QValueAxis(m_chart);
    m_ageAxis->setTitleText(tr("last tick age (s)"));
    m_chart->addAxis(m_ageAxis, Qt::AlignLeft);

    m_curves = new AgeCurves(m_chart);
    // Where Qt Charts puts its series (ChartPresenter::SeriesZValue): above the grid, below the
    // legend; created before the marker and threshold series, so stacked beneath them.
    m_curves->setZValue(4);
    m_curves->setHoverHandler([this](const QString &role, const QPointF &point, bool state) {
        showCurveTip(role, point, state);
    });
    connect(m_timeAxis, &QDateTimeAxis::rangeChanged, this,
            [this](const QDateTime &min, const QDateTime &max) {
                m_curves->setTimeRange(double(min.toMSecsSinceEpoch()),
                                       double(max.toMSecsSinceEpoch()));
            });
    connect(m_ageAxis, &QValueAxis::rangeChanged, this,
            [this](qreal min, qreal max) { m_curves->setAgeRange(min, max); });
    connect(m_chart, &QChart::plotAreaChanged, this,
            [this](const QRectF &area) { m_curves->setPlotArea(area); });
    setAgeAxisTop(1);

    for (int kind = 0; kind < MarkerKindCount; ++kind) {
        auto *series = new QScatterSeries(m_chart);
        series->setName(markerName(Kind(kind)));
        series->setMarkerShape(markerShape(Kind(kind)));
        series->setMarkerSize(11);
        m_chart->addSeries(series);
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_ageAxis);
        connect(series, &QScatterSeries::hovered, this,
                [this, kind](const QPointF &point, bool state) {
                    showMarkerTip(kind, point, state);
                });
        m_markerSeries.append(MarkerSeries{series, {}});
    }

    m_view = new QChartView(m_chart, this); // takes ownership of the chart
    m_view->setRenderHint(QPainter::Antialiasing, true);
    m_view->setMinimumHeight(200);

    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Window:"), this));
    top->addWidget(m_windowBox);
    top->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);

    applyTheme();
}

AgeChart::~AgeChart() = default;

void AgeChart::setHistory(const TickHistory *history)
{
    m_history = history;
    if (!isCount())
        m_ageAxis->setTitleText(tr("last tick age (s)"));
    refresh();
}

void AgeChart::setWindow(Window window)
{
    const int index = m_windowBox->findData(int(window));
    if (m_windowBox->currentIndex() != index) {
        const QSignalBlocker blocker(m_windowBox);
        m_windowBox->setCurrentIndex(index);
    }
    if (window == m_window)
        return;
    m_window = window;
    m_timeAxis->setFormat(axisFormat(window));
    refresh();
    Q_EMIT windowChanged(window);
}

void AgeChart::setMaxPoints(int maxPoints)
{
    m_maxPoints = std::max(2, maxPoints);
}

void AgeChart::setThreshold(const QString &role, std::optional<double> seconds)
{
    if (seconds)
        m_thresholds.insert(role, *seconds);
    else
        m_thresholds.remove(role);
    if (!seconds) {
        const auto it = m_series.find(role);
        if (it != m_series.end() && it->threshold)
            it->threshold->clear();
    }
}

AgeChart::RoleSeries &AgeChart::seriesFor(const QString &role)
{
    auto it = m_series.find(role);
    if (it != m_series.end())
        return *it;
    RoleSeries entry;
    entry.order = int(m_roleOrder.size());
    entry.legend = new QLineSeries(m_chart);
    entry.legend->setName(role);
    m_chart->addSeries(entry.legend);
    entry.legend->attachAxis(m_timeAxis);
    entry.legend->attachAxis(m_ageAxis);
    entry.index = m_curves->addCurve(role);
    entry.threshold = new QLineSeries(m_chart);
    entry.threshold->setName(tr("%1 threshold").arg(role));
    m_chart->addSeries(entry.threshold);
    entry.threshold->attachAxis(m_timeAxis);
    entry.threshold->attachAxis(m_ageAxis);
    for (QLegendMarker *marker : m_chart->legend()->markers(entry.threshold))
        marker->setVisible(false);
    m_roleOrder.append(role);
    it = m_series.insert(role, entry);
    applyTheme();
    return *it;
}

void AgeChart::setTimeRule(const TimeRule *rule)
{
    m_timeRule.bind(rule, this, [this] { timeRuleChanged(); });
}

void AgeChart::timeRuleChanged()
{
    m_timeAxis->setTitleText(tr("database time (%1)").arg(TimeRule::zoneName(zone())));
    refresh();
}

void AgeChart::refresh()
{
    const QDateTime latest = m_history && !m_history->isEmpty() ? m_history->latestTime()
                                                                : QDateTime::currentDateTimeUtc();
    m_shiftMs = zone() == TimeZoneMode::Utc ? -qint64(latest.toLocalTime().offsetFromUtc()) * 1000
                                            : 0;
    const auto shifted = [this](const QDateTime &time) {
        return time.addMSecs(m_shiftMs);
    };
    if (!m_history || m_history->isEmpty()) {
        for (RoleSeries &entry : m_series) {
            m_curves->curve(entry.index).points.clear();
            entry.threshold->clear();
        }
        m_curves->setLineLabels({});
        m_curves->update();
        for (MarkerSeries &markers : m_markerSeries) {
            markers.series->clear();
            markers.markers.clear();
        }
        m_timeAxis->setRange(shifted(latest.addMSecs(-historyWindowMs(m_window))), shifted(latest));
        setAgeAxisTop(1);
        if (isCount())
            m_ageAxis->setTitleText(countAxisTitle());
        return;
    }

    const QDateTime end = m_history->latestTime();
    const QDateTime start = end.addMSecs(-historyWindowMs(m_window));
    // The curves set the scale; a threshold line is drawn only when it is near them, else a
    // billing alert at minutes would flatten the outboxes' seconds into the axis.
    double top = 1.0;
    for (const QString &role : m_history->roles()) {
        RoleSeries &entry = seriesFor(role);
        QList<QPointF> points = m_history->series(role, m_window, m_maxPoints);
        for (QPointF &p : points) {
            top = std::max(top, p.y());
            p.rx() += double(m_shiftMs);
        }
        m_curves->curve(entry.index).points = std::move(points);
    }
    m_curves->update();
    const double dataTop = top;
    QMap<double, QStringList> labelled; // the outboxes share one alert: one label names them all
    for (const QString &role : m_history->roles()) {
        RoleSeries &entry = seriesFor(role);
        const auto threshold = isCount() ? m_thresholds.cend() : m_thresholds.constFind(role);
        if (threshold != m_thresholds.cend() && *threshold <= dataTop * 1.5) {
            top = std::max(top, *threshold);
            labelled[*threshold].append(role);
            const QList<QPointF> line{
                    QPointF(double(shifted(start).toMSecsSinceEpoch()), *threshold),
                    QPointF(double(shifted(end).toMSecsSinceEpoch()), *threshold)};
            if (entry.threshold->points() != line)
                entry.threshold->replace(line);
        } else if (entry.threshold->count() > 0) {
            entry.threshold->clear();
        }
    }
    QList<AgeCurves::LineLabel> labels;
    for (auto it = labelled.cbegin(); it != labelled.cend(); ++it)
        labels.append({it.key(),
                       tr("%1 alert %2 s")
                               .arg(it.value().join(QStringLiteral(", ")))
                               .arg(it.key(), 0, 'f', it.key() == std::floor(it.key()) ? 0 : 1)});
    m_curves->setLineLabels(std::move(labels));

    QList<QList<QPointF>> markerPoints(MarkerKindCount);
    for (MarkerSeries &markers : m_markerSeries)
        markers.markers.clear();
    for (const TickHistory::Marker &marker : m_history->markers(m_window)) {
        const int kind = int(marker.kind);
        markerPoints[kind].append(
                QPointF(double(shifted(marker.time).toMSecsSinceEpoch()), marker.ageSeconds));
        m_markerSeries[kind].markers.append(marker);
    }
    // Markers keep their times: most polls change none, and a replace() relayouts the series.
    for (int kind = 0; kind < MarkerKindCount; ++kind) {
        if (m_markerSeries[kind].series->points() != markerPoints[kind])
            m_markerSeries[kind].series->replace(markerPoints[kind]);
    }

    m_timeAxis->setRange(shifted(start), shifted(end));
    setAgeAxisTop(niceCeiling(top * 1.05));
    if (isCount())
        m_ageAxis->setTitleText(countAxisTitle());
}

void AgeChart::setAgeAxisTop(double top)
{
    // A count has no fractions: 5 at least, so that every step is a whole one.
    if (isCount())
        top = std::max(top, 5.0);
    // top is 1, 2 or 5 × 10^n: a fifth (of 1 and 5) or a quarter (of 2) puts every tick on a round
    // value, and tenths below 1 s keep 0.5 from being printed as a second 0 or 1.
    const double leading = std::round(top / std::pow(10.0, std::floor(std::log10(top))));
    const int steps = leading == 2.0 ? 4 : 5;
    m_ageAxis->setRange(0, top);
    m_ageAxis->setTickCount(steps + 1);
    m_ageAxis->setLabelFormat(top / steps < 1.0 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
}

void AgeChart::showMarkerTip(int kind, const QPointF &point, bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    const QList<TickHistory::Marker> &markers = m_markerSeries[kind].markers;
    const TickHistory::Marker *nearest = nullptr;
    double best = 0;
    for (const TickHistory::Marker &marker : markers) {
        const double distance
                = std::abs(double(marker.time.toMSecsSinceEpoch() + m_shiftMs) - point.x());
        if (!nearest || distance < best) {
            nearest = &marker;
            best = distance;
        }
    }
    if (nearest)
        QToolTip::showText(QCursor::pos(), plainToolTip(nearest->describe(zone())), this);
}

void AgeChart::showCurveTip(const QString &role, const QPointF &point, bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    const QDateTime time = QDateTime::fromMSecsSinceEpoch(qint64(point.x()) - m_shiftMs, Qt::UTC);
    QToolTip::showText(QCursor::pos(), curveTip(role, time, point.y()), this);
}

QString AgeChart::curveTip(const QString &role, const QDateTime &time, double value) const
{
    if (!isCount())
        return tr("%1: %2 s at %3")
                .arg(role)
                .arg(value, 0, 'f', 1)
                .arg(TimeRule::clock(time, zone()));
    const QString unit = m_history->unit(role);
    return tr("%1: %2 %3 at %4")
            .arg(role)
            .arg(std::max<qint64>(0, qRound64(value))) // the cursor's value, between two counts
            .arg(unit.isEmpty() ? tr("pending") : unit, TimeRule::clock(time, zone()));
}

QString AgeChart::countAxisTitle() const
{
    QStringList units;
    for (const QString &role : m_history->roles()) {
        const QString unit = m_history->unit(role);
        if (!unit.isEmpty() && !units.contains(unit))
            units.append(unit);
    }
    if (units.isEmpty())
        return tr("pending");
    // The axis runs up the chart's side, 200 px at least: the units that fit in about as many
    // characters as that holds, the rest left to the tooltips.
    constexpr qsizetype MaxUnitChars = 32;
    QString shown = units.constFirst();
    for (qsizetype i = 1; i < units.size(); ++i) {
        if (shown.size() + 2 + units.at(i).size() > MaxUnitChars) {
            shown += QStringLiteral(", …");
            break;
        }
        shown += QStringLiteral(", ") + units.at(i);
    }
    return tr("pending (%1)").arg(shown);
}

void AgeChart::applyTheme()
{
    // Follow the application palette: a dark window colour means a dark chart.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QChart::ChartTheme theme = dark ? QChart::ChartThemeDark : QChart::ChartThemeLight;
    if (m_chart->theme() != theme)
        m_chart->setTheme(theme);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    // The themes paint the background as a gradient in a rounded rectangle: every pixel of the
    // chart blended on every frame. A plain fill in the palette's base colour, as the holder
    // timeline beside it has, is a memory fill.
    m_chart->setBackgroundBrush(palette().color(QPalette::Base));
    m_chart->setBackgroundRoundness(0);
    // setTheme() recolours every series; put the role and marker colours back.
    for (const RoleSeries &entry : std::as_const(m_series)) {
        const QColor color = roleColor(entry.order, palette());
        entry.legend->setPen(QPen(color, CurvePenWidth));
        m_curves->curve(entry.index).pen = QPen(color, CurvePenWidth);
        QPen thresholdPen(color, 1.0, Qt::DashLine);
        entry.threshold->setPen(thresholdPen);
    }
    for (int kind = 0; kind < MarkerKindCount; ++kind) {
        QScatterSeries *series = m_markerSeries[kind].series;
        series->setColor(markFill(toneMark(Kind(kind)), palette()));
        series->setPen(QPen(markOutline(palette()), 1.5));
    }
    m_curves->setLabelColor(palette().color(QPalette::Text));
    m_curves->update();
}

void AgeChart::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange)
        applyTheme();
    QWidget::changeEvent(event);
}

QStringList AgeChart::roles() const
{
    return m_roleOrder;
}

int AgeChart::pointCount(const QString &role) const
{
    const auto it = m_series.constFind(role);
    return it == m_series.cend() ? 0 : int(m_curves->curve(it->index).points.size());
}

QRectF AgeChart::plotArea() const
{
    const QRectF inScene = m_curves->mapRectToScene(m_curves->plotArea());
    return QRectF(m_view->viewport()->mapTo(this, m_view->mapFromScene(inScene.topLeft())),
                  inScene.size());
}

QPointF AgeChart::pixelFor(const QDateTime &time, double ageSeconds) const
{
    const QPointF inScene = m_curves->mapToScene(
            m_curves->toPixel(QPointF(double(time.toMSecsSinceEpoch() + m_shiftMs), ageSeconds)));
    const QPoint inView = m_view->mapFromScene(inScene);
    return m_view->viewport()->mapTo(this, inView)
           + (inScene - m_view->mapToScene(inView)); // keep the fraction mapFromScene rounds away
}

int AgeChart::markerCount(TickHistory::Marker::Kind kind) const
{
    return int(m_markerSeries[int(kind)].series->count());
}

QDateTime AgeChart::rangeStart() const
{
    return m_timeAxis->min().addMSecs(-m_shiftMs);
}

QDateTime AgeChart::rangeEnd() const
{
    return m_timeAxis->max().addMSecs(-m_shiftMs);
}

QStringList AgeChart::thresholdLabels() const
{
    QStringList texts;
    for (const AgeCurves::LineLabel &label : m_curves->lineLabels())
        texts.append(label.text);
    return texts;
}

QString AgeChart::timeAxisTitle() const
{
    return m_timeAxis->titleText();
}

QString AgeChart::timeAxisLabel(const QDateTime &time) const
{
    // As QDateTimeAxis formats a value: local time of the (shifted) epoch milliseconds.
    return QDateTime::fromMSecsSinceEpoch(time.toMSecsSinceEpoch() + m_shiftMs)
            .toString(m_timeAxis->format());
}

double AgeChart::valueAxisMax() const
{
    return m_ageAxis->max();
}

QString AgeChart::valueAxisTitle() const
{
    return m_ageAxis->titleText();
}

} // namespace leader::console
