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
// why (ticking every second). Several rows may be selected (Ctrl, Shift); the selection survives
// each poll's rows.
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

    QStringList selectedRoles() const;    // in the table's order
    bool selectRole(const QString &role); // false: no such row
    void selectRoles(const QStringList &roles);
    // Selects role once rows arrive (--role); the first rows lacking it emit roleMissing instead.
    void selectWhenShown(const QString &role);
    QTableView *view() const { return m_view; }

Q_SIGNALS:
    void selectionChanged();
    void roleMissing(const QString &role);

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
    QString m_pendingRole;
};

} // namespace leader::console
