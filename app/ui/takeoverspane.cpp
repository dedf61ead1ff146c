#include "takeoverspane.h"

#include "models/failovermodel.h"
#include "tableview.h"

#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

TakeoversPane::TakeoversPane(FailoverModel *model, QWidget *parent)
    : QWidget(parent)
{
    auto *note = new QLabel(
            tr("Each takeover (a new holder after the previous lease expired unreleased, not a "
               "normal hand-over): the previous holder's last heartbeat (its last expiry minus the "
               "10 s lease) to the successor's acquired_at, both on the database clock. ADR-114 "
               "bound: acquirable ≤ 10 s after the last heartbeat."));
    note->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(note);
    layout->addWidget(makeTableView(QStringLiteral("failoverView"), model));
}

TakeoversPane::~TakeoversPane() = default;

} // namespace leader::console
