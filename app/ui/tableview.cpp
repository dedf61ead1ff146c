#include "tableview.h"

#include <QHeaderView>
#include <QTableView>

namespace leader::console {

QTableView *makeTableView(const QString &objectName, QAbstractItemModel *model)
{
    auto *view = new QTableView;
    view->setObjectName(objectName);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    return view;
}

} // namespace leader::console
