#pragma once

#include <QList>
#include <QString>

class QAbstractItemModel;
class QTableView;

namespace leader::console {

// The console's read-only tables: whole rows selected, one at a time, no row numbers, the last
// column stretched, alternating rows, rows as high as the font needs and, while the table has the
// keyboard focus, a two-tone ring around the current row that reads in light and dark themes
// alike, on a selected row or not.
QTableView *makeTableView(const QString &objectName, QAbstractItemModel *model);

// One column's fixed width: its widest expected content (and its header's title unless that may
// elide, its tooltip then saying it whole); extra: a decoration's room.
struct ColumnWidth
{
    int column = 0;
    QString widest;
    bool headerFits = true;
    int extra = 0;
};

// Sizes the columns from the font, not from the values they hold now, so they do not jump as the
// values change: Interactive, so the operator may still drag them; a longer value is elided.
// Returns the columns' total width.
int fixColumnWidths(QTableView *view, const QList<ColumnWidth> &columns);
// The width the view needs to show columns this wide without a horizontal scrollbar, with room
// for a vertical one.
int viewWidthFor(const QTableView *view, int columnsWidth);
// The height the view needs to show its header and rows rows.
int heightForRows(const QTableView *view, int rows);

} // namespace leader::console
