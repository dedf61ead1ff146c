#pragma once

#include "core/statustypes.h"

#include <QDateTime>
#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace leader::console {

class StatusModel;
class TimeRule;

// The status table with, above it while the rows are not live, a banner saying since when and
// why (ticking every second). The selection survives each poll's rows.
class StatusPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StatusPane)

public:
    StatusPane(StatusModel *model, const TimeRule *timeRule, QWidget *parent = nullptr);
    ~StatusPane() override;

    void setSnapshot(const StatusSnapshot &snapshot);
    // asOf: when the rows shown were received; why: what is wrong, one line.
    void setStale(bool stale, const QDateTime &asOf);
    void setStaleReason(const QString &why);

    QString selectedRole() const;
    void selectRole(const QString &role);
    QTableView *view() const { return m_view; }

Q_SIGNALS:
    void selectionChanged();

private:
    void updateBanner();

    StatusModel *m_model;
    const TimeRule *m_timeRule;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_view = nullptr;
    QLabel *m_banner = nullptr;
    QTimer *m_ticker = nullptr;
    bool m_stale = false;
    QDateTime m_asOf;
    QString m_why;
};

} // namespace leader::console
