#pragma once

#include <QDateTime>
#include <QWidget>

#include <functional>

class QLabel;
class QTableView;
class QTimer;

namespace leader::console {

class TimeRule;

// The stale mark: one line of dark text on an amber band with a warning sign, laid over the
// table's header while the rows shown are not live. An overlay, not a row of the layout, so the
// table's geometry never moves: no row is pushed behind a scrollbar when an outage starts and none
// jumps back when it ends, and a live table spends no height on it. What it covers meanwhile is
// the header's titles. It counts the outage up each second:
//   Stale for 0:42 — last good poll 14:03:12 (local UTC+01:00); retrying — <target>: <why>
// elided at the right when narrow, the server's whole text in the tooltip. The same colours in
// light and dark themes: a warning band reads as one in both, at a contrast of about 10:1.
class StaleBanner final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StaleBanner)

public:
    using Clock = std::function<QDateTime()>;

    // A child of table, over its horizontal header; hidden until setStale(true). timeRule: the
    // zone of the last good poll's time (none: local time).
    StaleBanner(QTableView *table, const TimeRule *timeRule);
    ~StaleBanner() override;

    // asOf: when the rows shown were received (the workstation's clock, UTC).
    void setStale(bool stale, const QDateTime &asOf);
    // why: one line, what is done next and the target named once ("retrying — demo (…): cannot
    // reach the server: Connection refused"); detail: all there is, for the tooltip.
    void setReason(const QString &why, const QString &detail);
    // What "now" is for the count: the workstation's clock unless a test brings its own.
    void setClock(Clock now);

    bool isStale() const { return m_stale; }
    QString text() const { return m_text; } // the whole line, before eliding

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refresh();
    void place();
    void elide();

    QTableView *m_table;
    const TimeRule *m_timeRule;
    QLabel *m_icon;
    QLabel *m_label;
    QTimer *m_ticker;
    Clock m_now;
    bool m_stale = false;
    QDateTime m_asOf;
    QString m_why;
    QString m_detail;
    QString m_text;
};

// How long an outage has lasted: "0:42", "12:05", "1:02:03".
QString outageDuration(qint64 seconds);

} // namespace leader::console
