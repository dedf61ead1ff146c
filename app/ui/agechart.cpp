#include "agechart.h"

#include "models/tones.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QDateTimeAxis>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace leader::console {

namespace {

using Kind = TickHistory::Marker::Kind;

constexpr int MarkerKindCount = 3;

// Mid-saturation colours that stay readable on both the light and the dark chart theme.
const QList<QColor> &roleColors()
{
    static const QList<QColor> colors{QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                      QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                                      QColor(0x17, 0xbe, 0xcf), QColor(0x8c, 0x56, 0x4b),
                                      QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};
    return colors;
}

// From the palette, so a marker stays visible on the dark chart as on the light one.
QColor markerColor(Kind kind, const QPalette &palette)
{
    switch (kind) {
    case Kind::Pause:
        return toneText(Tone::Warning, palette);
    case Kind::Unpause:
        return toneText(Tone::Good, palette);
    case Kind::Takeover:
        return toneText(Tone::Alert, palette);
    }
    return toneText(Tone::Neutral, palette);
}

QScatterSeries::MarkerShape markerShape(Kind kind)
{
    switch (kind) {
    case Kind::Pause:
        return QScatterSeries::MarkerShapeRectangle;
    case Kind::Unpause:
        return QScatterSeries::MarkerShapeCircle;
    case Kind::Takeover:
        return QScatterSeries::MarkerShapeTriangle;
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

// 1, 2, 5 × 10^n at or above value, so the axis does not jitter with every poll.
double niceCeiling(double value)
{
    if (value <= 1.0)
        return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        if (step * magnitude >= value)
            return step * magnitude;
    }
    return 10.0 * magnitude;
}

QString axisFormat(HistoryWindow window)
{
    return window == HistoryWindow::FiveMinutes ? QStringLiteral("HH:mm:ss")
                                                : QStringLiteral("HH:mm");
}

} // namespace

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
    m_chart->setMargins(QMargins(4, 4, 4, 4));

    m_timeAxis = new QDateTimeAxis(m_chart);
    m_timeAxis->setFormat(axisFormat(m_window));
    m_timeAxis->setTickCount(6);
    m_timeAxis->setTitleText(tr("database time (%1)").arg(TimeRule::zoneName(zone())));
    m_chart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_ageAxis = new QValueAxis(m_chart);
    m_ageAxis->setTitleText(tr("last tick age (s)"));
    setAgeAxisTop(1);
    m_chart->addAxis(m_ageAxis, Qt::AlignLeft);

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
    emit windowChanged(window);
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
    entry.color = roleColors().at(m_roleOrder.size() % roleColors().size());
    entry.line = new QLineSeries(m_chart);
    entry.line->setName(role);
    entry.line->setPen(QPen(entry.color, 1.5));
    // Qt Charts draws scatter series above line series whatever the order they were added in.
    m_chart->addSeries(entry.line);
    entry.line->attachAxis(m_timeAxis);
    entry.line->attachAxis(m_ageAxis);
    connect(entry.line, &QLineSeries::hovered, this,
            [this, role](const QPointF &point, bool state) {
                if (!state) {
                    QToolTip::hideText();
                    return;
                }
                const QDateTime time
                        = QDateTime::fromMSecsSinceEpoch(qint64(point.x()) - m_shiftMs, Qt::UTC);
                QToolTip::showText(QCursor::pos(),
                                   tr("%1: %2 s at %3")
                                           .arg(role)
                                           .arg(point.y(), 0, 'f', 1)
                                           .arg(TimeRule::clock(time, zone())),
                                   this);
            });
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
            entry.line->clear();
            entry.threshold->clear();
        }
        for (MarkerSeries &markers : m_markerSeries) {
            markers.series->clear();
            markers.markers.clear();
        }
        m_timeAxis->setRange(shifted(latest.addMSecs(-historyWindowMs(m_window))), shifted(latest));
        setAgeAxisTop(1);
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
        entry.line->replace(points);
    }
    const double dataTop = top;
    for (const QString &role : m_history->roles()) {
        RoleSeries &entry = seriesFor(role);
        const auto threshold = m_thresholds.constFind(role);
        if (threshold != m_thresholds.cend() && *threshold <= dataTop * 1.5) {
            top = std::max(top, *threshold);
            entry.threshold->replace(
                    {QPointF(double(shifted(start).toMSecsSinceEpoch()), *threshold),
                     QPointF(double(shifted(end).toMSecsSinceEpoch()), *threshold)});
        } else if (entry.threshold->count() > 0) {
            entry.threshold->clear();
        }
    }

    QList<QList<QPointF>> markerPoints(MarkerKindCount);
    for (MarkerSeries &markers : m_markerSeries)
        markers.markers.clear();
    for (const TickHistory::Marker &marker : m_history->markers(m_window)) {
        const int kind = int(marker.kind);
        markerPoints[kind].append(
                QPointF(double(shifted(marker.time).toMSecsSinceEpoch()), marker.ageSeconds));
        m_markerSeries[kind].markers.append(marker);
    }
    for (int kind = 0; kind < MarkerKindCount; ++kind)
        m_markerSeries[kind].series->replace(markerPoints[kind]);

    m_timeAxis->setRange(shifted(start), shifted(end));
    setAgeAxisTop(niceCeiling(top * 1.05));
}

void AgeChart::setAgeAxisTop(double top)
{
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
        QToolTip::showText(QCursor::pos(), nearest->describe(zone()), this);
}

void AgeChart::applyTheme()
{
    // Follow the application palette: a dark window colour means a dark chart.
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    const QChart::ChartTheme theme = dark ? QChart::ChartThemeDark : QChart::ChartThemeLight;
    if (m_chart->theme() != theme)
        m_chart->setTheme(theme);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    // setTheme() recolours every series; put the role and marker colours back.
    for (const RoleSeries &entry : std::as_const(m_series)) {
        const QColor color = dark ? entry.color.lighter(120) : entry.color;
        entry.line->setPen(QPen(color, 1.5));
        QPen thresholdPen(color, 1.0, Qt::DashLine);
        entry.threshold->setPen(thresholdPen);
    }
    for (int kind = 0; kind < MarkerKindCount; ++kind) {
        QScatterSeries *series = m_markerSeries[kind].series;
        series->setColor(markerColor(Kind(kind), palette()));
        series->setBorderColor(dark ? QColor(Qt::white) : QColor(Qt::black));
    }
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
    return it == m_series.cend() ? 0 : int(it->line->count());
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

} // namespace leader::console
