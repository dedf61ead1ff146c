#pragma once

#include <QSortFilterProxyModel>

namespace leader::console {

// What the History view shows of a PauseLogModel: one role's rows (empty: every role) with the
// text in any column, case-insensitive (empty: every row).
class PauseLogFilter final : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseLogFilter)

public:
    explicit PauseLogFilter(QObject *parent = nullptr);

    QString role() const { return m_role; }
    QString text() const { return m_text; }
    void setRole(const QString &role);
    void setText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_role;
    QString m_text;
};

} // namespace leader::console
