#include "eventlogpane.h"

#include "models/eventlogmodel.h"
#include "tableview.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace leader::console {

namespace {

constexpr int FitColumnsRows = 50;

} // namespace

EventLogPane::EventLogPane(EventLogModel *model, QWidget *parent)
    : QWidget(parent)
    , m_filter(new EventLogFilter(this))
{
    m_filter->setSourceModel(model);
    auto *layout = new QVBoxLayout(this);
    auto *filterRow = new QHBoxLayout;
    auto *filterEdit = new QLineEdit;
    filterEdit->setObjectName(QStringLiteral("eventFilter"));
    filterEdit->setPlaceholderText(tr("Filter: text in any column (role, replica, event, …)"));
    filterEdit->setClearButtonEnabled(true);
    connect(filterEdit, &QLineEdit::textChanged, m_filter, &EventLogFilter::setText);
    auto *exportButton = new QPushButton(tr("Export CSV…"));
    connect(exportButton, &QPushButton::clicked, this, &EventLogPane::exportRequested);
    filterRow->addWidget(filterEdit, 1);
    filterRow->addWidget(exportButton);
    layout->addLayout(filterRow);
    QTableView *view = makeTableView(QStringLiteral("eventView"), m_filter);
    view->setWordWrap(false);
    layout->addWidget(view);
    // The columns fit their headers (the time's names its zone) and the first rows; a long log
    // is not re-measured on every row, and the operator's own widths then stay.
    connect(m_filter, &QAbstractItemModel::rowsInserted, view, [view] {
        if (view->model()->rowCount() <= FitColumnsRows)
            view->resizeColumnsToContents();
        if (view->verticalScrollBar()->value() >= view->verticalScrollBar()->maximum() - 2)
            QTimer::singleShot(0, view, &QTableView::scrollToBottom);
    });
}

EventLogPane::~EventLogPane() = default;

} // namespace leader::console
