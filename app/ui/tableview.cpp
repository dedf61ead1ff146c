#include "tableview.h"

#include <QHeaderView>
#include <QPainter>
#include <QStyle>
#include <QTableView>

namespace leader::console {

namespace {

// Qt draws a focused item view's current cell with the style's focus rectangle, a faint dotted
// line in Fusion that vanishes on a selected row; this ring does not.
class FocusRingTableView final : public QTableView
{
public:
    using QTableView::QTableView;

protected:
    void paintEvent(QPaintEvent *event) override
    {
        QTableView::paintEvent(event);
        const QModelIndex current = currentIndex();
        if (!hasFocus() || !current.isValid())
            return;
        QRect ring = visualRect(current);
        if (selectionBehavior() == SelectRows) {
            ring.setLeft(-horizontalOffset());
            ring.setRight(horizontalHeader()->length() - horizontalOffset() - 1);
        }
        // The outer line shows on the base colour, the inner one on the selection's.
        QPainter painter(viewport());
        painter.setBrush(Qt::NoBrush);
        painter.setPen(QPen(palette().color(QPalette::Active, QPalette::Highlight), 2));
        painter.drawRect(ring.adjusted(1, 1, -1, -1));
        painter.setPen(QPen(palette().color(QPalette::Active, QPalette::HighlightedText), 1));
        painter.drawRect(ring.adjusted(2, 2, -3, -3));
    }
};

} // namespace

QTableView *makeTableView(const QString &objectName, QAbstractItemModel *model)
{
    auto *view = new FocusRingTableView;
    view->setObjectName(objectName);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->verticalHeader()->hide();
    // The style's default row leaves room for two lines' worth of padding: a laptop's screen shows
    // more rows at the font's own height.
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setAlternatingRowColors(true);
    view->setTextElideMode(Qt::ElideRight);
    return view;
}

int fixColumnWidths(QTableView *view, const QList<ColumnWidth> &columns)
{
    QHeaderView *header = view->horizontalHeader();
    const QFontMetrics metrics = view->fontMetrics();
    // QStyledItemDelegate's room around a cell's text: the focus frame's margin and a pixel, each
    // side, and a little slack for a font that rounds up.
    const int margin
            = 2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1) + 6;
    header->setSectionResizeMode(QHeaderView::Interactive);
    int total = 0;
    for (const ColumnWidth &column : columns) {
        int width = metrics.horizontalAdvance(column.widest) + margin + column.extra;
        if (column.headerFits)
            width = std::max(width, header->sectionSizeHint(column.column));
        header->resizeSection(column.column, width);
        total += width;
    }
    return total;
}

int viewWidthFor(const QTableView *view, int columnsWidth)
{
    return columnsWidth + view->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, view)
           + 2 * view->frameWidth();
}

int heightForRows(const QTableView *view, int rows)
{
    return view->horizontalHeader()->sizeHint().height()
           + rows * view->verticalHeader()->defaultSectionSize() + 2 * view->frameWidth();
}

} // namespace leader::console
