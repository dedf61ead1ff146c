#pragma once

#include <QHash>
#include <QSortFilterProxyModel>
#include <QString>

namespace leader::console {

// What a log view shows of its model: the rows whose chosen columns hold the required values (an
// empty value: any), and that contain the text in any column, case-insensitive (empty: every
// row). The event log and the pause history filter this way; each names its own columns.
class ColumnFilter : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ColumnFilter)

public:
    QString text() const { return m_text; }
    void setText(const QString &text);

protected:
    explicit ColumnFilter(QObject *parent = nullptr);

    QString required(int column) const { return m_required.value(column); }
    void setRequired(int column, const QString &value);
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QHash<int, QString> m_required;
    QString m_text;
};

} // namespace leader::console
