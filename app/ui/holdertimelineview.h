#pragma once

#include "core/tickhistory.h"
#include "models/holdertimeline.h"

#include <QPointer>
#include <QWidget>

namespace leader::console {

// One lane per role, one coloured bar per span (a stable colour per holder id, from the roles'
// colour-blind-safe palette), over the same window of database time as the age chart. A takeover's
// gap is labelled with its length in a Text-coloured frame on Base (no hue, so no holder's colour
// matches it), a change the polls cannot classify with "?", a pause with "paused"; handovers, the
// ordinary rotation, are not marked. A legend names the holders in the window (by the model's
// holder names, "r2", where it has them) and says so; hovering a bar or a gap says who, which
// token, when and how the holder changed.
class HolderTimelineView final : public QWidget
{
    Q_OBJECT

public:
    using Window = HistoryWindow;

    explicit HolderTimelineView(QWidget *parent = nullptr);
    ~HolderTimelineView() override;

    void setModel(HolderTimeline *model); // not owned
    HolderTimeline *model() const { return m_model; }

    void setWindow(Window window);
    Window window() const { return m_window; }

    // A holder's colour by its name where the model has one (else its id): the same on a theme
    // in every run, and a replica keeps it across restarts. Numbered names (r1, r2, …) take
    // successive colours, so up to seven of them never share one.
    static QColor holderColor(const QString &holder, const QPalette &palette);

    // What the view shows at pos (a span's or a gap's description), empty if nothing.
    QString toolTipAt(const QPoint &pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    struct Layout
    {
        QRect lanes; // where the spans go
        int labelWidth = 0;
        int laneHeight = 0;
        QDateTime start;
        QDateTime end;
    };

    Layout layoutNow() const;
    void paintGapLabel(QPainter &painter, const QRectF &box, const QString &text,
                       HolderChangeKind kind) const;
    void paintLegend(QPainter &painter, const QStringList &holderIds) const;
    double xFor(const Layout &layout, const QDateTime &time) const;
    int laneHeight() const;

    QPointer<HolderTimeline> m_model;
    Window m_window = Window::FiveMinutes;
};

} // namespace leader::console
