#pragma once

#include "core/statustypes.h"

#include <QDateTime>
#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace leader::console {

class RoleDetailsDialog;
class StaleBanner;
class StatusModel;
class TimeRule;

// The status table under its quick filter (the roles whose name holds the text; Esc clears it)
// with, over its header while the rows are not live, the stale banner saying for how long and why
// (StaleBanner). Several rows may be selected (Ctrl, Shift); the selection survives each poll's
// rows. Its columns keep their widths whatever the values (fixColumnWidths), the ones an operator
// reads first leftmost.
class StatusPane final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(StatusPane)

public:
    StatusPane(StatusModel *model, const TimeRule *timeRule, QWidget *parent = nullptr);
    ~StatusPane() override;

    void setSnapshot(const StatusSnapshot &snapshot);
    // asOf: when the rows shown were received; why: what is wrong, one line naming the target
    // once; detail: all of it, for the banner's tooltip.
    void setStale(bool stale, const QDateTime &asOf);
    void setStaleReason(const QString &why, const QString &detail);

    QStringList selectedRoles() const;    // in the table's order
    bool selectRole(const QString &role); // false: no such row
    void selectRoles(const QStringList &roles);
    // Selects role once rows arrive (--role); the first rows lacking it emit roleMissing instead.
    void selectWhenShown(const QString &role);
    QTableView *view() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }
    void focusFilter(); // the filter, its text selected to type over
    // The pane's height with rows rows and the header in view.
    int heightForRows(int rows) const;
    // Five roles and the header in view, and a horizontal scrollbar where the window is narrow.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    StaleBanner *staleBanner() const { return m_banner; }
    // The role's tick details (RoleDetailsDialog), opened or raised; also on a double-click and
    // the row's Tick details… action. nullptr for an empty role.
    RoleDetailsDialog *openDetails(const QString &role);

Q_SIGNALS:
    void selectionChanged();
    void roleMissing(const QString &role);

private:
    StatusModel *m_model;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    StaleBanner *m_banner = nullptr;
    QString m_pendingRole;
};

} // namespace leader::console
