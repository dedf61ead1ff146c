#include "takeoverspane.h"

#include "core/leasefacts.h"
#include "models/failovermodel.h"
#include "tableview.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace leader::console {

namespace {

QString longestRole()
{
    QString longest;
    for (const QString &role : leaseRoles()) {
        if (role.size() > longest.size())
            longest = role;
    }
    return longest;
}

} // namespace

TakeoversPane::TakeoversPane(FailoverModel *model, QWidget *parent)
    : QWidget(parent)
{
    // One line over the table, the whole explanation in its tooltip: the rows are what counts.
    auto *note = new QLabel(tr("Takeovers, measured on the database clock (details in the "
                               "tooltips):"));
    note->setObjectName(QStringLiteral("takeoversNote"));
    note->setToolTip(
            tr("Each takeover: a new holder after the previous one died (its database session "
               "ended) or its lease expired unreleased, not a normal hand-over. Gap: the previous "
               "holder's last heartbeat (its last expiry minus the 10 s lease) to the successor's "
               "acquired_at; After fault: from the fault itself; both on the database clock. "
               "ADR-114 bound: acquirable ≤ 10 s, running elsewhere ≤ 15 s after the last "
               "heartbeat. The instants are in the tooltips."));
    m_view = makeTableView(QStringLiteral("failoverView"), model);
    // The dock beside the failure panel is narrow: the whole row, gap and bound included, fits
    // without scrolling; the instants' columns would not, and their tooltips say them anyway.
    m_view->setColumnHidden(FailoverModel::LastHeartbeat, true);
    m_view->setColumnHidden(FailoverModel::Acquired, true);
    m_view->setWordWrap(false);
    // Widths from the font, not from the rows so far: a new row moves no column. A longer fault
    // ("panic r1 billing step") is elided; the hosted replicas are named r1 to r3.
    const QString gap = FailoverModel::formatGap(88.88);
    const int columns
            = fixColumnWidths(m_view, {{FailoverModel::Role, longestRole()},
                                       {FailoverModel::Fault, QStringLiteral("freeze r3 300 s")},
                                       {FailoverModel::Victim, QStringLiteral("r3")},
                                       {FailoverModel::Successor, QStringLiteral("r3")},
                                       {FailoverModel::Gap, gap},
                                       {FailoverModel::Bound, tr("≤ %1 s ✓").arg(88)},
                                       {FailoverModel::AfterFault, gap}});
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_view->setMinimumWidth(viewWidthFor(m_view, columns));
    m_view->setMinimumHeight(heightForRows(m_view, 3));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(note);
    layout->addWidget(m_view);
}

TakeoversPane::~TakeoversPane() = default;

void TakeoversPane::showHolderIds()
{
    // hostname:pid:8hex, the fault as the polls classify it; a tab as wide as the window has the
    // room, and scrolls when it does not.
    const QString holder = QStringLiteral("hostname.example:123456:0b75130b");
    fixColumnWidths(m_view, {{FailoverModel::Fault, QStringLiteral("holder died (database)")},
                             {FailoverModel::Victim, holder, true},
                             {FailoverModel::Successor, holder, true}});
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_view->setMinimumWidth(0);
}

} // namespace leader::console
