#include "takeoverspane.h"

#include "models/failovermodel.h"
#include "tableview.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

TakeoversPane::TakeoversPane(FailoverModel *model, QWidget *parent)
    : QWidget(parent)
{
    auto *note = new QLabel(
            tr("Each takeover: a new holder after the previous one died (its database session "
               "ended) or its lease expired unreleased, not a normal hand-over. Gap: the previous "
               "holder's last heartbeat (its last expiry minus the 10 s lease) to the successor's "
               "acquired_at; After fault: from the fault itself; both on the database clock. "
               "ADR-114 bound: acquirable ≤ 10 s, running elsewhere ≤ 15 s after the last "
               "heartbeat. The instants are in the tooltips."));
    note->setWordWrap(true);
    QTableView *view = makeTableView(QStringLiteral("failoverView"), model);
    // The dock beside the failure panel is narrow: the whole row, gap and bound included, fits
    // without scrolling; the instants' columns would not, and their tooltips say them anyway.
    view->setColumnHidden(FailoverModel::LastHeartbeat, true);
    view->setColumnHidden(FailoverModel::Acquired, true);
    view->setWordWrap(false);
    QHeaderView *header = view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(false);
    // A horizontal header sizes its sections to the rows it has seen: new rows are measured here.
    connect(model, &QAbstractItemModel::rowsInserted, header,
            [header] { header->resizeSections(QHeaderView::ResizeToContents); });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(view);
}

TakeoversPane::~TakeoversPane() = default;

} // namespace leader::console
