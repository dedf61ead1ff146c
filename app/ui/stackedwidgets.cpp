#include "stackedwidgets.h"

#include <QVBoxLayout>
#include <QWidget>

namespace leader::console {

QWidget *stackedWidgets(std::initializer_list<QWidget *> widgets, const QWidget *stretched)
{
    auto *container = new QWidget;
    auto *layout = new QVBoxLayout(container);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    for (QWidget *widget : widgets)
        layout->addWidget(widget, widget == stretched ? 1 : 0);
    return container;
}

} // namespace leader::console
