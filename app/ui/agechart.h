#pragma once

#include "core/tickhistory.h"
#include "core/timerule.h"

#include <QColor>
#include <QHash>
#include <QList>
#include <QWidget>

#include <optional>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QComboBox;
class QDateTimeAxis;
class QLineSeries;
class QScatterSeries;
class QValueAxis;
QT_END_NAMESPACE

namespace leader::console {

class AgeCurves;

// Each role's value over a window of database time, with pause, unpause and takeover markers: its
// last_tick_age with optional per-role thresholds, or, on a backlog history (TickHistory::value()),
// its pending count on an integer axis in the roles' units, without thresholds. The only class
// that knows Qt Charts (deprecated from
// Qt 6.10): moving to Qt Graphs touches this file and agechart.cpp (which also holds AgeCurves, the
// item that draws the roles' curves inside the chart), nothing else.
class AgeChart final : public QWidget
{
    Q_OBJECT

public:
    using Window = HistoryWindow;

    explicit AgeChart(QWidget *parent = nullptr);
    ~AgeChart() override;

    // Not owned; must outlive the chart or be reset to nullptr first. What it keeps (an age or a
    // backlog) sets the value axis.
    void setHistory(const TickHistory *history);
    const TickHistory *history() const { return m_history; }

    void setWindow(Window window); // refreshes; emits windowChanged when it changed
    Window window() const { return m_window; }

    // Per role and series; a min/max pair per bucket, so peaks survive the decimation.
    void setMaxPoints(int maxPoints);
    int maxPoints() const { return m_maxPoints; }

    // A dashed horizontal line for role's alert at seconds, labelled with its role and value
    // (nullopt removes it); shown from refresh(). An age's only: a backlog chart draws none.
    void setThreshold(const QString &role, std::optional<double> seconds);

    // The axis, the tooltips and the markers' texts in the rule's zone; null: local time. Not
    // owned. Refreshes when the rule changes.
    void setTimeRule(const TimeRule *rule);

    // Rebuilds every series from the history: call after each poll's append().
    void refresh();

    // What is drawn, for the tests and the benchmark.
    QStringList roles() const;
    int pointCount(const QString &role) const;
    int markerCount(TickHistory::Marker::Kind kind) const;
    QDateTime rangeStart() const;
    QDateTime rangeEnd() const;
    double valueAxisMax() const;
    QString valueAxisTitle() const;
    // The tooltip of role's curve at time and value: "billing: 4.0 s at 12:00:05", on a backlog
    // chart "billing: 42 due subscriptions at 12:00:05".
    QString curveTip(const QString &role, const QDateTime &time, double value) const;
    // The threshold lines' labels, lowest first ("billing alert 270 s").
    QStringList thresholdLabels() const;
    QString timeAxisTitle() const;
    // The label the time axis draws at time.
    QString timeAxisLabel(const QDateTime &time) const;
    // Where the curves are drawn and the pixel a (time, age) lands on, in this widget as grab()
    // draws it: a test can look for a curve there.
    QRectF plotArea() const;
    QPointF pixelFor(const QDateTime &time, double ageSeconds) const;

Q_SIGNALS:
    void windowChanged(leader::console::HistoryWindow window);

protected:
    void changeEvent(QEvent *event) override;

private:
    bool isCount() const { return m_history && m_history->value() == HistoryValue::BacklogPending; }
    void setAgeAxisTop(double top); // from niceCeiling()
    QString countAxisTitle() const;
    struct RoleSeries
    {
        // Empty: it gives the role its legend entry; AgeCurves draws the role's points.
        QLineSeries *legend = nullptr;
        QLineSeries *threshold = nullptr;
        int order = 0; // first seen: its colour (roleColor)
        int index = 0; // in AgeCurves
    };
    struct MarkerSeries
    {
        QScatterSeries *series = nullptr;
        QList<TickHistory::Marker> markers; // parallel to the series' points
    };

    RoleSeries &seriesFor(const QString &role);
    void applyTheme();
    void showMarkerTip(int kind, const QPointF &point, bool state);
    void showCurveTip(const QString &role, const QPointF &point, bool state);
    TimeZoneMode zone() const { return m_timeRule.zone(); }
    void timeRuleChanged();

    const TickHistory *m_history = nullptr;
    Window m_window = Window::FiveMinutes;
    int m_maxPoints = 1200;
    QHash<QString, double> m_thresholds;
    TimeRuleBinding m_timeRule;
    // QDateTimeAxis labels every value in local time: in UTC the x values are moved by the local
    // offset so its labels read UTC (one offset per refresh: a DST change inside a 24 h window
    // puts the labels before it an hour off).
    qint64 m_shiftMs = 0;

    QComboBox *m_windowBox = nullptr;
    QChartView *m_view = nullptr;
    QChart *m_chart = nullptr;
    QDateTimeAxis *m_timeAxis = nullptr;
    QValueAxis *m_ageAxis = nullptr;
    AgeCurves *m_curves = nullptr; // owned by m_chart
    QStringList m_roleOrder;
    QHash<QString, RoleSeries> m_series;
    QList<MarkerSeries> m_markerSeries; // indexed by Marker::Kind
};

} // namespace leader::console
