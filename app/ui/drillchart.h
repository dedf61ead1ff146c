#pragma once

#include "core/drillreport.h"
#include "models/agethresholds.h"

#include <QDateTime>
#include <QImage>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QString>

#include <optional>

namespace leader::console {

class TickHistory;

// The drill report's chart, drawn off-screen for a customer and for print: each role's last tick
// age over the drill's own time range plus a margin, the drilled role on top and thicker, each
// fault, takeover, pause and unpause marked with its number from the report's table, labels set
// side by side above the plot so close events do not stack, and a legend. No widget takes part,
// so it is the same headless as in a window.
class DrillChart final
{
public:
    struct Curve
    {
        QString role;
        QList<QPointF> points; // x: msecs since epoch (database clock), y: age in seconds
    };
    struct Mark
    {
        enum class Kind { Fault, Takeover, Pause, Unpause };

        Kind kind = Kind::Fault;
        int number = 0; // the row of the report's table
        QDateTime time;
        QString text; // "kill r1", "r2 took over", "pause", "unpause"
    };
    // Who held the drilled role and ran it, by replica ("r2"); between two, nobody did.
    struct Holder
    {
        QString name;
        QDateTime from;
        QDateTime to;
    };
    struct Label
    {
        Mark mark;
        QRectF rect; // logical pixels
    };

    static constexpr QSize LogicalSize{960, 420};
    static constexpr qreal PixelRatio = 2.0; // for print
    static constexpr qint64 MinMarginMs = 2000;
    static constexpr double MarginFraction = 0.05; // of the drill's duration, each side

    // threshold: the drilled role's, its lines drawn when near the curves.
    explicit DrillChart(const DrillResult &result,
                        std::optional<AgeThreshold> threshold = std::nullopt);

    // In the order the roles were first seen: their colours follow it, as in the live chart.
    void setCurves(QList<Curve> curves) { m_curves = std::move(curves); }
    // Each role's ages from history over [from, to], one point beyond each end so the lines run
    // to the plot's edges; from and to: rangeStart() and rangeEnd().
    static QList<Curve> curvesFrom(const TickHistory &history, const QDateTime &from,
                                   const QDateTime &to);
    // The lane under the plot, from the report's own measurements: each victim from its last
    // heartbeat (the first) or its acquisition to its fault, the pause's holder until the pause
    // and whoever led after the unpause; the gaps, nobody running the role, hatched.
    const QList<Holder> &holders() const { return m_holders; }

    QDateTime rangeStart() const { return m_start; }
    QDateTime rangeEnd() const { return m_end; }
    double ageAxisTop() const;
    const QList<Mark> &marks() const { return m_marks; }
    // Where the time axis puts a label, and its text.
    QList<std::pair<QDateTime, QString>> timeTicks() const;
    // The marks' labels as render() places them: side by side, never overlapping.
    QList<Label> labels() const;
    QString emphasisedRole() const { return m_role; }
    // Where (time, age) lands in the image, in logical pixels.
    QPointF pixelFor(const QDateTime &time, double ageSeconds) const;
    // The holders' lane, in logical pixels; empty without holders.
    QRectF holderLane() const;

    QImage render() const; // LogicalSize at PixelRatio

private:
    struct Layout;
    Layout layout() const;
    std::optional<double> ageAt(const QString &role, qint64 ms) const;

    QString m_role;
    QDateTime m_drillStart;
    QDateTime m_drillEnd;
    QDateTime m_start;
    QDateTime m_end;
    QList<Curve> m_curves;
    QList<Mark> m_marks;
    QList<Holder> m_holders;
    std::optional<AgeThreshold> m_threshold;
};

} // namespace leader::console
