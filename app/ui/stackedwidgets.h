#pragma once

#include <initializer_list>

class QWidget;

namespace leader::console {

// The widgets one above the other, top first, in a new bare container (no margins, no spacing):
// how a controller puts its band, bar or banner beside the window's central widget. Only
// stretched, when given, takes the height left over.
QWidget *stackedWidgets(std::initializer_list<QWidget *> widgets,
                        const QWidget *stretched = nullptr);

} // namespace leader::console
