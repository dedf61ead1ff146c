#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;

namespace leader::console {

// The console's read-only tables: whole rows selected, one at a time, no row numbers, the last
// column stretched, alternating rows.
QTableView *makeTableView(const QString &objectName, QAbstractItemModel *model);

} // namespace leader::console
